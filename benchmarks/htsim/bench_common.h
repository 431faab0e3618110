// -*- c-basic-offset: 4; indent-tabs-mode: nil -*-
// Shared pieces of burstlab's htsim drivers (benchmarks/htsim/): a Bernoulli drop element,
// flag parsing and the JSON line every driver prints, in the form of the single-flow
// driver main_lossy_tcp.cpp of $BURSTLAB_SHARED/anchors/htsim/ (loop CPU time from
// CLOCK_PROCESS_CPUTIME_ID, packets = TcpSrc::_packets_sent / mss over all sources).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include <time.h>
#include "config.h"
#include "network.h"
#include "eventlist.h"
#include "tcp.h"
#include "pipe.h"
#include "queue.h"

// Drops each packet independently with probability p; placed after a queue, so the
// packet has been serialised on the link (burstlab's per-packet loss after the queue).
class LossySink : public PacketSink {
public:
    LossySink(double p, uint64_t seed) : _p(p), _rng(seed), _drops(0) {}
    void receivePacket(Packet& pkt) override {
        if (_p > 0.0 && _u(_rng) < _p) { _drops++; pkt.free(); return; }
        pkt.sendOn();
    }
    const string& nodename() override { return _name; }
    double _p;
    std::mt19937_64 _rng;
    std::uniform_real_distribution<double> _u{0.0, 1.0};
    uint64_t _drops;
    string _name{"lossy"};
};

struct Flags {
    double p = 0.0, T = 100.0, bw_mbps = 10.0;
    uint64_t seed = 1;
    int n = 10;
};

// -p P -T SECONDS -seed N [-n FLOWS] [-bw MBPS]; exits 2 on an unknown flag.
inline Flags parse_flags(int argc, char** argv, Flags f) {
    for (int i = 1; i < argc; i++) {
        bool more = i + 1 < argc;
        if (more && !strcmp(argv[i], "-p")) f.p = atof(argv[++i]);
        else if (more && !strcmp(argv[i], "-T")) f.T = atof(argv[++i]);
        else if (more && !strcmp(argv[i], "-seed")) f.seed = strtoull(argv[++i], 0, 10);
        else if (more && !strcmp(argv[i], "-n")) f.n = atoi(argv[++i]);
        else if (more && !strcmp(argv[i], "-bw")) f.bw_mbps = atof(argv[++i]);
        else { fprintf(stderr, "error: unknown or incomplete flag %s\n", argv[i]); exit(2); }
    }
    return f;
}

// Peak resident set of this program (VmHWM: after exec, unlike getrusage's ru_maxrss,
// which also counts the parent's image a fork copied), kB; -1 if unknown.
inline long vm_hwm_kb() {
    FILE* f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) { kb = atol(line + 6); break; }
    fclose(f);
    return kb;
}

inline double cpu_now() {
    timespec c;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    return c.tv_sec + 1e-9 * c.tv_nsec;
}

// Run the event loop, timing its CPU, and print the JSON line.
inline void run_and_report(EventList& ev, const char* scenario, const Flags& f,
                           const std::vector<TcpSrc*>& srcs, const std::vector<TcpSink*>& sinks,
                           const std::vector<LossySink*>& losses, const std::vector<Queue*>& queues) {
    double c0 = cpu_now();
    uint64_t events = 0;
    while (ev.doNextEvent()) events++;
    double cpu = cpu_now() - c0;
    const int mss = Packet::data_packet_size();
    uint64_t pkts = 0, lost = 0, acked = 0;
    long drops = 0;
    for (auto s : srcs) pkts += s->_packets_sent / mss;
    for (auto k : sinks) acked += k->_cumulative_ack;
    for (auto l : losses) lost += l->_drops;
    for (auto q : queues) drops += q->num_drops();
    fprintf(stdout,
            "{\"sim\": \"htsim\", \"scenario\": \"%s\", \"flows\": %zu, \"T\": %g, \"seed\": %llu, "
            "\"packets_sent\": %llu, \"channel_losses\": %llu, \"queue_drops\": %ld, \"goodput_bps\": %.0f, "
            "\"events\": %llu, \"loop_cpu_s\": %.6f, \"loop_cpu_pps\": %.4e, \"maxrss_kb\": %ld}\n",
            scenario, srcs.size(), f.T, (unsigned long long)f.seed, (unsigned long long)pkts,
            (unsigned long long)lost, drops, (double)acked * 8.0 / f.T, (unsigned long long)events, cpu,
            pkts / cpu, vm_hwm_kb());
}
