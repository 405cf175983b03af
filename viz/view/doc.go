// Package view is the page's pure logic: the shareable state and its URL
// form, the token map's geometry and hit-testing, colours, memory-bar and
// model-scale arithmetic, sparkline scaling and number formatting. It knows
// nothing of Ebiten or the browser, so it is tested natively and as wasm.
package view
