package sim

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"testing"
)

// TestWriteCSV: the header names every column a row has, and each record
// reads back to the row's values exactly.
func TestWriteCSV(t *testing.T) {
	rows := []Row{
		{Policy: "h2o", Budget: 64, Sink: 4, Recent: 32, Heavy: 28, Bits: 8, Granularity: "channel", Bytes: 12345, FullBytes: 65536,
			Ratio: 65536.0 / 12345, Mass: 0.8517, OutErr: 0.0921, KL: 0.257, KErr: 1.0 / 3, VErr: 0.004},
		{Policy: "chunk", DropShare: 0.25, Bits: 4, Granularity: "kivi", Top1: 0.9, NextKL: 0.01, PPL: 3.1, PPLFull: 2.99},
	}
	for _, withModel := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteCSV(&b, rows, withModel); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		want := 16
		if withModel {
			want = 20
		}
		if len(recs) != 1+len(rows) || len(recs[0]) != want {
			t.Fatalf("withModel=%v: %d records of %d columns", withModel, len(recs), len(recs[0]))
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		for i, r := range rows {
			rec := recs[1+i]
			num := func(name string) float64 {
				v, err := strconv.ParseFloat(rec[col[name]], 64)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return v
			}
			if rec[col["policy"]] != r.Policy || rec[col["granularity"]] != r.Granularity || num("ratio") != r.Ratio ||
				num("key_error") != r.KErr || num("drop") != r.DropShare || num("bytes") != float64(r.Bytes) {
				t.Errorf("row %d reads back as %v", i, rec)
			}
			if withModel && num("ppl_full") != r.PPLFull {
				t.Errorf("row %d: ppl_full %v", i, rec[col["ppl_full"]])
			}
		}
	}
}

func ExampleWriteCSV() {
	var b bytes.Buffer
	WriteCSV(&b, []Row{{Policy: "window", Budget: 32, Recent: 32, Bits: 16, Granularity: "token", Bytes: 4096, FullBytes: 8192, Ratio: 2, Mass: 0.5}}, false)
	fmt.Print(b.String())
	// Output:
	// policy,budget,sink,recent,heavy,drop,bits,granularity,bytes,full_bytes,ratio,mass,output_error,kl,key_error,value_error
	// window,32,0,32,0,0,16,token,4096,8192,2,0.5,0,0,0,0
}
