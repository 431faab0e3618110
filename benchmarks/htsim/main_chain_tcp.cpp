// -*- c-basic-offset: 4; indent-tabs-mode: nil -*-
// The 4-hop chain of burstlab's network speed benchmark (benchmarks/README.md), on the
// pattern of the single-flow driver main_lossy_tcp.cpp: one TcpSrc -> 4 x [Queue (10 Mb/s,
// 101 packets with the one in service) -> LossySink(p) -> Pipe (2.5 ms)] -> TcpSink; ACKs
// back through 4 x [Queue (10 Mb/s) -> Pipe (2.5 ms)]. Bulk flow for T seconds.
// Flags: -p P (per hop, default 0.0025: 1 % end to end) -T SECONDS -seed N.
#include "bench_common.h"

int main(int argc, char** argv) {
    Flags def; def.p = 0.0025;
    Flags f = parse_flags(argc, argv, def);
    const int hops = 4;
    srand((unsigned)f.seed);
    EventList eventlist;
    eventlist.setEndtime(timeFromSec(f.T));
    Packet::set_packet_size(1000);
    const int mss = Packet::data_packet_size();
    linkspeed_bps rate = speedFromMbps((uint64_t)10);

    TcpSrc* src = new TcpSrc(NULL, NULL, eventlist);
    TcpSink* snk = new TcpSink();
    src->set_cwnd(2 * mss);          // burstlab's initial window: 2 segments
    src->set_ssthresh(0xffffffffu);  // burstlab's initial ssthresh: infinite
    TcpRtxTimerScanner scanner(timeFromMs(10), eventlist);
    scanner.registerTcp(*src);

    std::vector<LossySink*> losses;
    std::vector<Queue*> queues;
    std::vector<Queue*> rq;
    std::vector<Pipe*> rp;
    route_t* out = new route_t();
    for (int h = 0; h < hops; h++) {
        Queue* q = new Queue(rate, memFromPkt(101), eventlist, NULL);
        // Each hop's losses from their own stream (burstlab: one stream per link).
        LossySink* l = new LossySink(f.p, f.seed * 1000 + h);
        Pipe* p = new Pipe(timeFromUs(10000.0 / hops), eventlist);
        out->push_back(q); out->push_back(l); out->push_back(p);
        queues.push_back(q);
        losses.push_back(l);
        rq.push_back(new Queue(rate, memFromPkt(101), eventlist, NULL));
        rp.push_back(new Pipe(timeFromUs(10000.0 / hops), eventlist));
        queues.push_back(rq.back());
    }
    out->push_back(snk);
    route_t* back = new route_t();
    for (int h = hops - 1; h >= 0; h--) { back->push_back(rq[h]); back->push_back(rp[h]); }
    back->push_back(src);
    src->connect(*out, *back, *snk, 0);
    run_and_report(eventlist, "chain", f, {src}, {snk}, losses, queues);
    return 0;
}
