package kv

// Full keeps every token: the uncompressed baseline every other policy is
// measured against. It reads no setting and needs no index map.
func init() {
	define(Full, &policyDef{name: "full", noIndex: true})
}
