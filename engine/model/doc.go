// Package model describes transformer language models: their shapes,
// parameter counts and training FLOPs, with presets for published models.
//
// Units: parameters and FLOPs are counts (float64 to hold 10^15 and
// beyond); sizes of tensors are elements. Formulas cite their source:
// Megatron-LM's parameter and FLOP counts (Narayanan et al., arXiv
// 2104.04473; Korthikanti et al., arXiv 2205.05198) for GPT-style models
// with biases and learned positions, and the architecture papers for
// Llama's grouped-query attention, SwiGLU and untied embeddings; for
// mixtures of experts and latent attention, the published architectures
// (Mixtral, arXiv 2401.04088; DeepSeek-V2, arXiv 2405.04434; DeepSeek-V3,
// arXiv 2412.19437; Llama 4, Meta's model cards) and their released
// config.json files, whose counts the tests hold to the published
// totals. A config.json is read as transformers' class for its
// model_type reads it (hfarch.go): the architecture, not the file's
// other keys, decides what each key means.
package model
