// Package units formats the quantities gpuscope shows — bytes, durations,
// bandwidths, FLOP counts and rates, ratios, percentages and counts — for
// people to read. The CLI's text output, the narration, the numbers
// tables, the canvas labels and the course all format through it, so a
// number reads the same wherever it appears.
//
// The convention, one for everything:
//
//   - Values are SI: bytes, seconds, FLOP, bytes per second, FLOP per
//     second (float64, as the engine computes them).
//   - Three significant digits, trailing zeros dropped: 2.7 ms, 22 ms,
//     1.42 s, 825 GB, 34.8 GB. A value is rounded before its unit is
//     chosen, so 999.7 ms reads 1 s, never 1000 ms.
//   - Decimal prefixes with SI symbols: B, kB, MB, GB, TB, PB (GB = 10^9
//     bytes, as the published figures use it); binary ones (KiB, MiB,
//     GiB, TiB) only through BytesIEC, for sizes the reader gave in binary
//     units (a 256 MiB vector).
//   - A space between the number and its unit; a unit symbol is never
//     pluralised or translated: s, ms, µs, ns, ps, GB, GB/s, TFLOP/s.
//   - Durations from a minute up use min, h and d (days from 48 h); in
//     Chinese these three are words (分钟, 小时, 天), following the rules
//     in the project's glossary; below a minute the symbols are the same in
//     both languages.
//   - Ratios are "8.13×" in English and "8.13 倍" in Chinese; percentages
//     are "89.9%"; counts are grouped by thousands with commas ("16,384")
//     in both languages.
//   - Zero is "0" with the base unit ("0 s", "0 B"); negative values carry
//     a minus sign; NaN and infinities read "n/a" and "∞".
//
// Languages are "en" and "zh" (the catalogue's codes); any other code
// reads as English.
package units
