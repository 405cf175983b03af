package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
)

// tokenOptions are the settings of the token-level runs, which compare
// kvscope with other implementations id by id.
type tokenOptions struct {
	tokenize bool
	ids      string
	logits   string
}

// on reports whether a token-level run is asked for.
func (o tokenOptions) on() bool { return o.tokenize || o.ids != "" || o.logits != "" }

func tokenFlags(fs *flag.FlagSet, o *tokenOptions) {
	fs.BoolVar(&o.tokenize, "tokenize", false, "with -model, read UTF-8 text from standard input and print its token ids on one line, space-separated, without BOS "+
		"(as llama.cpp's llama_tokenize with no specials added or parsed); a vocabulary-only file is enough")
	fs.StringVar(&o.ids, "ids", "", "with -model and -logits, the comma-separated token `ids` to feed, as given (no BOS added)")
	fs.StringVar(&o.logits, "logits", "", "with -model and -ids, write the logits after each fed id to `file` through the uncompressed cache: "+
		"little-endian float32, one row of vocabulary size per position")
}

// runTokens runs -tokenize, or -ids with -logits, with the model file at path.
func runTokens(stdin io.Reader, stdout io.Writer, path string, o tokenOptions) error {
	switch {
	case path == "":
		return errors.New("-tokenize, -ids and -logits need -model")
	case o.tokenize && (o.ids != "" || o.logits != ""):
		return errors.New("-tokenize and -ids/-logits are separate runs: give one")
	case o.tokenize:
		return tokenize(stdin, stdout, path)
	case o.ids == "":
		return errors.New("-logits needs -ids")
	case o.logits == "":
		return errors.New("-ids needs -logits (the file to write)")
	}
	return writeLogits(path, o.ids, o.logits)
}

// tokenize prints the ids of standard input's text.
func tokenize(stdin io.Reader, stdout io.Writer, path string) error {
	tok, err := loadTokenizer(path)
	if err != nil {
		return err
	}
	text, err := io.ReadAll(stdin)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	for i, id := range tok.Encode(string(text), false, false) {
		if i > 0 {
			w.WriteByte(' ')
		}
		w.WriteString(strconv.Itoa(id))
	}
	w.WriteByte('\n')
	return w.Flush()
}

// loadTokenizer returns the tokenizer of the GGUF file at path, reading
// only the file's metadata (no tensor).
func loadTokenizer(path string) (*model.Tokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	gf, err := gguf.Load(f, st.Size())
	if err != nil {
		return nil, err
	}
	return model.TokenizerFromGGUF(gf)
}

// parseIDs parses "1,2,3".
func parseIDs(s string) ([]int, error) {
	parts := strings.Split(s, ",")
	ids := make([]int, len(parts))
	for i, p := range parts {
		id, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("-ids: %q is not a token id", p)
		}
		ids[i] = id
	}
	return ids, nil
}

// writeLogits feeds ids through the model at path with the uncompressed
// cache and writes every position's logits to out.
func writeLogits(path, idList, out string) error {
	ids, err := parseIDs(idList)
	if err != nil {
		return err
	}
	m, err := loadModel(path)
	if err != nil {
		return err
	}
	c := m.Config
	for _, id := range ids {
		if id < 0 || id >= c.Vocab {
			return fmt.Errorf("-ids: id %d out of range [0, %d)", id, c.Vocab)
		}
	}
	if len(ids) > c.ContextLength {
		return fmt.Errorf("-ids: %d ids exceed the model's context of %d", len(ids), c.ContextLength)
	}
	fc, err := model.NewFullCache(c, len(ids))
	if err != nil {
		return err
	}
	r := m.NewRunner(fc)
	row := make([]byte, 4*c.Vocab)
	return writeFile(out, func(w io.Writer) error {
		for _, id := range ids {
			logits, err := r.Forward(id)
			if err != nil {
				return err
			}
			for j, x := range logits {
				binary.LittleEndian.PutUint32(row[4*j:], math.Float32bits(x))
			}
			if _, err := w.Write(row); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeFile creates (or truncates) the file at path, lets fill write it
// through a buffer, and closes it. It returns the first error of the
// four; after one, what was written stays in the file.
func writeFile(path string, fill func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
