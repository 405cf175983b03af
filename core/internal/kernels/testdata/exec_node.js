// exec_node.js runs a GOOS=js GOARCH=wasm test binary under Node with
// kvscope's SIMD kernels wired into its imports: Go's own
// $GOROOT/lib/wasm/wasm_exec_node.js plus static/kernels.js. Use it as go
// test's -exec (the Makefile's test-wasm and test-kernels do):
//
//   GOOS=js GOARCH=wasm go test -exec="node --stack-size=8192 $PWD/core/internal/kernels/testdata/exec_node.js" ./core/...
//
// Environment:
//   KVSCOPE_KERNELS  the kernel module to attach (default static/kernels.wasm
//                    of this checkout); "none" attaches none, so the program
//                    runs on its Go path. A missing default file is as "none".
//   GOROOT           where wasm_exec.js is (default: `go env GOROOT`).
"use strict";

const fs = require("fs");
const path = require("path");

if (process.argv.length < 3) {
	console.error("usage: exec_node.js [wasm binary] [arguments]");
	process.exit(1);
}

globalThis.require = require;
globalThis.fs = fs;
globalThis.path = path;
globalThis.TextEncoder = require("util").TextEncoder;
globalThis.TextDecoder = require("util").TextDecoder;
globalThis.performance ??= require("performance");
globalThis.crypto ??= require("crypto");

const goroot = process.env.GOROOT ||
	require("child_process").execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
require(path.join(goroot, "lib", "wasm", "wasm_exec.js"));

const repo = path.resolve(__dirname, "..", "..", "..", "..");
const kernelsJS = require(path.join(repo, "static", "kernels.js"));
let kernelsPath = process.env.KVSCOPE_KERNELS || path.join(repo, "static", "kernels.wasm");
if (kernelsPath === "none" || (!process.env.KVSCOPE_KERNELS && !fs.existsSync(kernelsPath))) {
	kernelsPath = null;
}

const go = new Go();
go.argv = process.argv.slice(2);
go.env = Object.assign({ TMPDIR: require("os").tmpdir() }, process.env);
go.exit = process.exit;
const kernels = kernelsJS.wire(go, kernelsPath && fs.readFileSync(kernelsPath));
WebAssembly.instantiate(fs.readFileSync(process.argv[2]), go.importObject).then(async (result) => {
	await kernels.attach(result.instance);
	process.on("exit", (code) => { // Node.js exits if no event handler is pending
		if (code === 0 && !go.exited) {
			// deadlock, make Go print error and stack traces
			go._pendingEvent = { id: 0 };
			go._resume();
		}
	});
	return go.run(result.instance);
}).catch((err) => {
	console.error(err);
	process.exit(1);
});
