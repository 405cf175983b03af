package kv

// Full keeps every token: the uncompressed baseline every other policy is
// measured against. It reads no setting and needs no index map.
func init() {
	define(Full, &policyDef{
		desc: Description{
			Name: "full", Label: "full cache", Title: "Full cache", Color: "#000000",
			Short: "keeps every token: the uncompressed baseline",
			Help:  "Keeps every token. The baseline: memory grows linearly with the text; only storage (bits, rank) can save space.",
		},
		noIndex: true,
	})
}
