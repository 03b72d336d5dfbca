package validate

// HeldOut are the 21 rows set aside before any of issue 37's mechanisms
// was built (testdata/issue37/SPLIT.md: the names' SHA-256 digests in
// ascending order, the first ⌈63/3⌉ of the rows not already quoted;
// sha256(heldout.json) = 665dae10…; TestIssue37Split derives them again
// from rows.json).
var HeldOut = []string{
	"megascale-megatron-175b-512", "megascale-megatron-175b-768",
	"dgxc-llama31-405b-bf16-2304",
	"megatron-core-h100-weak-177b-2304", "megatron-core-h100-strong-177b-96", "megatron-core-h100-strong-177b-4608",
	"llmfoundry-mpt-70b-h100-bf16-128", "llmfoundry-mpt-30b-a100-bf16-8", "llmfoundry-mpt-70b-a100-40gb-bf16-128", "llmfoundry-mpt-3b-h100-fp8-8",
	"torchtitan-llama31-8b-fsdp-bf16-128", "torchtitan-llama31-70b-fsdp32-tp8-compile-bf16-256",
	"narayanan21-t2-ptdp-175b-384", "narayanan21-t2-ptdp-530b-2240", "narayanan21-t2-zero3-175b-384",
	"mtnlg-530b-2240", "mtnlg-530b-2800",
	"nemotron4-15b-report-768", "nemotron4-340b-report-3072", "nemotron4-340b-report-6144",
	"llama1-65b-2048-a100",
}
