//go:build !js

// Command serve serves kvscope's static page for local use:
//
//	go run ./wasm/serve -dir static -addr localhost:8080
//
// It is a plain file server that sends no caching headers, so a rebuilt
// main.wasm is picked up on reload.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
)

func main() {
	dir := flag.String("dir", "static", "directory to serve")
	addr := flag.String("addr", "localhost:8080", "address to listen on")
	flag.Parse()
	if _, err := os.Stat(*dir + "/index.html"); err != nil {
		log.Fatalf("serve: %s has no index.html (run make build first): %v", *dir, err)
	}
	fs := http.FileServer(http.Dir(*dir))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		fs.ServeHTTP(w, r)
	})
	log.Printf("kvscope: serving %s on http://%s/", *dir, *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}
