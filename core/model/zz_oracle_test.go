package model_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

func TestZZOracle(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	ids := []int{1, 300, 41, 7, 399, 120, 5, 64, 200, 33, 17, 250, 90, 91, 92, 93, 11, 12, 13, 14}
	var sids []string
	for _, i := range ids {
		sids = append(sids, fmt.Sprint(i))
	}
	for _, s := range archSpecs {
		s.Type = gguf.TypeF32
		data := ggufwrite.Llama(s)
		path := "/tmp/llcpp/" + s.Arch + ".gguf"
		os.WriteFile(path, data, 0o644)
		out, err := exec.Command("node", "/tmp/llcpp/lp.mjs", path, strings.Join(sids, ","), path+".lp").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v %s", s.Arch, err, out)
		}
		raw, _ := os.ReadFile(path + ".lp")
		m, err := model.Load(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		r := m.NewRunner(fullCache(t, m.Config))
		var worst float64
		for i, tok := range ids {
			lg, _ := r.Forward(tok)
			lse := 0.0
			mx := float64(lg[0])
			for _, v := range lg {
				mx = math.Max(mx, float64(v))
			}
			for _, v := range lg {
				lse += math.Exp(float64(v) - mx)
			}
			lse = mx + math.Log(lse)
			for j, v := range lg {
				ref := float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*(i*len(lg)+j):])))
				worst = math.Max(worst, math.Abs(float64(v)-lse-ref))
			}
		}
		t.Logf("%s: max |Δ logprob| %g", s.Arch, worst)
	}
}
