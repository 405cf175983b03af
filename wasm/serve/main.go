//go:build !js

// Command serve serves kvscope's static page for local use:
//
//	go run ./wasm/serve -dir static -addr localhost:8080
//	go run ./wasm/serve -dir .site -prefix /course/kvscope/
//
// It serves the files as a static host does (package site): gzipped
// copies where make build wrote them, and revalidation on every load, so
// a rebuilt main.wasm is picked up on reload.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/kvscope/kvscope/wasm/internal/site"
)

func main() {
	dir := flag.String("dir", "static", "directory to serve")
	addr := flag.String("addr", "localhost:8080", "address to listen on")
	prefix := flag.String("prefix", "/", "URL path the page is served under, as a project site is (/course/kvscope/)")
	flag.Parse()
	if _, err := os.Stat(*dir + "/index.html"); err != nil {
		log.Fatalf("serve: %s has no index.html (run make build first): %v", *dir, err)
	}
	h := site.Under(*prefix, site.Handler(*dir))
	log.Printf("kvscope: serving %s on http://%s%s", *dir, *addr, site.Clean(*prefix))
	log.Fatal(http.ListenAndServe(*addr, h))
}
