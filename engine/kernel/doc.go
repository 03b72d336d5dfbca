// Package kernel is the silicon layer: how one GPU runs a kernel. So far it
// holds the roofline — the ceiling a kernel of a given arithmetic intensity
// can reach on a GPU: attainable FLOP/s = min(peak, intensity × HBM
// bandwidth) — and its ridge point, peak ÷ bandwidth, where a kernel turns
// from memory-bound to compute-bound.
//
// Units: FLOP, bytes, seconds; intensity in FLOP per byte of HBM traffic;
// TFLOP/s = 10^12 FLOP/s and TB/s = 10^12 bytes/s.
package kernel
