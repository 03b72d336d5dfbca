// Package collective simulates collective communication (all-reduce and its
// parts) as chunk schedules executed on links, next to the closed-form
// alpha-beta costs that textbooks and nccl-tests use.
//
// Units: sizes in bytes, bandwidth in bytes per second per direction, time as
// sim.Time (integer picoseconds) in traces and seconds in Metrics. GB means
// 10^9 bytes.
//
// The fabric model: every rank (GPU) has one port to a non-blocking switch
// (NVSwitch inside a node, an InfiniBand switch between nodes). A port sends
// (tx) and receives (rx) at the link's bandwidth B in each direction at once,
// and every message pays the link's latency alpha once. A transfer from src to
// dst occupies src's tx and dst's rx for bytes/B; it starts when both are
// free and the data is ready, first come first served, and arrives alpha
// later. Contention therefore shows up where it does in practice: at a port
// that many transfers want at once, such as the root of a star.
//
// Reductions (the additions) are taken to cost no time: on GPUs they hide
// behind the transfers.
package collective
