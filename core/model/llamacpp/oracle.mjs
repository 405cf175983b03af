// llama.cpp (through node-llama-cpp's prebuilt CPU library) as kvscope's
// reference, run by package llamacpp's Go wrapper.
//
//   node oracle.mjs version
//       prints {"ok":true} once the library loads.
//   node oracle.mjs tokenize MODEL
//       reads {"plain": [texts], "special": [texts]} on stdin and prints
//       {"plain": [id lists], "special": [id lists]}: llama_tokenize with
//       add_special off, parse_special off for "plain" and on for "special".
//       The model is loaded vocabulary-only.
//   node oracle.mjs logprobs MODEL OUT
//       reads a JSON list of token ids on stdin, feeds them (no BOS added)
//       through a context with an F32 KV cache on one thread, and writes to
//       OUT the natural-log probabilities of the next token after every
//       position: little-endian float32, positions × vocabulary.
//   node oracle.mjs bench MODEL
//       reads {"prompt": [ids], "start": [ids], "decode": n, "warm": w,
//       "reps": r} on stdin and times, on one thread with an F32 KV cache,
//       w untimed then r timed sittings of two runs on a cleared sequence:
//       the prompt evaluated up to its first greedy token (its logits
//       included, as kvscope's Runner.Prefill returns them), and start
//       evaluated then n greedy tokens each fed back (the time from the
//       first generated token to the n+1st: n forward passes). Prints
//       {"prompt": [{"tokens", "ms"}], "decode": [{"tokens", "ms", "ids"}]}
//       (ids: the n+1 greedy tokens).
import {getLlama} from "node-llama-cpp";
import {writeFileSync} from "node:fs";

const [mode, modelPath, out] = process.argv.slice(2);

// stdinJSON reads all of standard input as a stream (a synchronous read of
// a pipe can fail with EAGAIN once the input outgrows the pipe's buffer).
async function stdinJSON() {
    const chunks = [];
    for await (const chunk of process.stdin) {
        chunks.push(chunk);
    }
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const llama = await getLlama({gpu: false, build: "never", logLevel: "error", progressLogs: false});

if (mode === "version") {
    process.stdout.write(JSON.stringify({ok: true}) + "\n");
} else if (mode === "tokenize") {
    const {plain, special} = await stdinJSON();
    const model = await llama.loadModel({modelPath, vocabOnly: true, gpuLayers: 0});
    const out = {
        plain: plain.map((t) => Array.from(model.tokenize(t, false))),
        special: special.map((t) => Array.from(model.tokenize(t, true))),
    };
    process.stdout.write(JSON.stringify(out) + "\n");
    await model.dispose();
} else if (mode === "logprobs") {
    const ids = await stdinJSON();
    const model = await llama.loadModel({modelPath, gpuLayers: 0});
    const context = await model.createContext({
        contextSize: Math.max(32, ids.length + 1),
        batchSize: Math.max(32, ids.length),
        threads: 1,
        flashAttention: false,
        experimentalKvCacheKeyType: "F32",
        experimentalKvCacheValueType: "F32",
    });
    const seq = context.getSequence();
    const res = await seq.controlledEvaluate(ids.map((t) => [t, {generateNext: {probabilities: true, token: true, options: {temperature: 0}}}]));
    // The distribution covers the whole vocabulary: its size is the row length.
    const n = res[0].next.probabilities.size;
    const rows = new Float32Array(ids.length * n).fill(-Infinity);
    res.forEach((r, i) => {
        for (const [tok, p] of r.next.probabilities) {
            if (tok >= n) {
                throw new Error(`token ${tok} outside a ${n}-token distribution`);
            }
            rows[i * n + tok] = Math.log(p);
        }
    });
    writeFileSync(out, Buffer.from(rows.buffer));
    await context.dispose();
    await model.dispose();
} else if (mode === "bench") {
    const {prompt, start, decode, warm, reps} = await stdinJSON();
    const model = await llama.loadModel({modelPath, gpuLayers: 0});
    const context = await model.createContext({
        contextSize: Math.max(prompt.length, start.length + decode) + 16,
        batchSize: Math.max(prompt.length, start.length),
        threads: 1,
        flashAttention: false,
        experimentalKvCacheKeyType: "F32",
        experimentalKvCacheValueType: "F32",
    });
    const seq = context.getSequence();
    const out = {prompt: [], decode: []};
    for (let i = 0; i < warm + reps; i++) {
        await seq.clearHistory();
        let t0 = performance.now();
        let it = seq.evaluate(prompt, {temperature: 0});
        await it.next();
        const promptMs = performance.now() - t0;
        await it.return();
        await seq.clearHistory();
        const ids = [];
        it = seq.evaluate(start, {temperature: 0});
        for (let r = await it.next(); !r.done; r = await it.next()) {
            ids.push(r.value);
            if (ids.length === 1) {
                t0 = performance.now();
            }
            if (ids.length === decode + 1) {
                break;
            }
        }
        const decodeMs = performance.now() - t0;
        await it.return();
        if (i >= warm) {
            out.prompt.push({tokens: prompt.length, ms: promptMs});
            out.decode.push({tokens: decode, ms: decodeMs, ids});
        }
    }
    process.stdout.write(JSON.stringify(out) + "\n");
    await context.dispose();
    await model.dispose();
} else {
    process.stderr.write(`oracle.mjs: unknown mode ${JSON.stringify(mode)} (want version, tokenize, logprobs or bench)\n`);
    process.exit(2);
}
await llama.dispose();
