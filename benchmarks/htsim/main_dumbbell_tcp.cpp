// -*- c-basic-offset: 4; indent-tabs-mode: nil -*-
// The 10-flow dumbbell of burstlab's network speed benchmark (benchmarks/README.md), on
// the pattern of htsim's tests/main_dumbell_tcp.cpp and the single-flow driver
// main_lossy_tcp.cpp. Flow k: TcpSrc -> access Queue k (100 Mb/s, 1001 packets) -> Pipe
// (5 ms) -> bottleneck Queue (BW, one BDP at the 50 ms RTT + the packet in service) ->
// LossySink(p) -> Pipe (20 ms) -> TcpSink k; ACKs: bottleneck reverse Queue (BW) -> Pipe
// (20 ms) -> access reverse Queue k (100 Mb/s) -> Pipe (5 ms) -> TcpSrc k. Bulk flows,
// flow k starting at k*1000/n us. Flags: -n FLOWS -bw MBPS -p P -T SECONDS -seed N.
#include "bench_common.h"

int main(int argc, char** argv) {
    Flags def; def.n = 10; def.bw_mbps = 10.0; def.p = 0.0;
    Flags f = parse_flags(argc, argv, def);
    srand((unsigned)f.seed);
    EventList eventlist;
    eventlist.setEndtime(timeFromSec(f.T));
    Packet::set_packet_size(1000);
    const int mss = Packet::data_packet_size();

    linkspeed_bps bw = speedFromMbps(f.bw_mbps), access = speedFromMbps((uint64_t)100);
    // burstlab: ceil(BW * 50 ms / 8000 bit) packets waiting; htsim counts the one in service.
    uint64_t bdp = ((uint64_t)(f.bw_mbps * 1e6) * 50 / 1000 + 7999) / 8000;
    if (bdp < 2) bdp = 2;
    Queue bq(bw, memFromPkt(bdp + 1), eventlist, NULL);
    LossySink loss(f.p, f.seed);
    Pipe bpipe(timeFromMs(20), eventlist);
    Queue brq(bw, memFromPkt(bdp + 1), eventlist, NULL);
    Pipe brpipe(timeFromMs(20), eventlist);
    TcpRtxTimerScanner scanner(timeFromMs(10), eventlist);

    std::vector<TcpSrc*> srcs;
    std::vector<TcpSink*> sinks;
    std::vector<Queue*> queues{&bq, &brq};
    for (int k = 0; k < f.n; k++) {
        Queue* aq = new Queue(access, memFromPkt(1001), eventlist, NULL);
        Pipe* apipe = new Pipe(timeFromMs(5), eventlist);
        Queue* arq = new Queue(access, memFromPkt(1001), eventlist, NULL);
        Pipe* arpipe = new Pipe(timeFromMs(5), eventlist);
        TcpSrc* src = new TcpSrc(NULL, NULL, eventlist);
        TcpSink* snk = new TcpSink();
        src->set_cwnd(2 * mss);          // burstlab's initial window: 2 segments
        src->set_ssthresh(0xffffffffu);  // burstlab's initial ssthresh: infinite
        scanner.registerTcp(*src);
        route_t* out = new route_t();
        out->push_back(aq); out->push_back(apipe);
        out->push_back(&bq); out->push_back(&loss); out->push_back(&bpipe); out->push_back(snk);
        route_t* back = new route_t();
        back->push_back(&brq); back->push_back(&brpipe);
        back->push_back(arq); back->push_back(arpipe); back->push_back(src);
        src->connect(*out, *back, *snk, timeFromUs((uint32_t)((uint64_t)k * 1000 / f.n)));
        srcs.push_back(src);
        sinks.push_back(snk);
        queues.push_back(aq);
        queues.push_back(arq);
    }
    run_and_report(eventlist, "dumbbell", f, srcs, sinks, {&loss}, queues);
    return 0;
}
