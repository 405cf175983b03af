package sim

import (
	"encoding/csv"
	"io"
	"strconv"
)

// The columns of a sweep as CSV (kvscope -sweep, and the page's chart
// export); a real-model sweep adds modelColumns.
var (
	sweepColumns = []string{"policy", "budget", "sink", "recent", "heavy", "drop", "bits", "granularity",
		"bytes", "full_bytes", "ratio", "mass", "output_error", "kl", "key_error", "value_error"}
	modelColumns = []string{"top1", "next_kl", "ppl", "ppl_full"}
)

// CSVHeader returns the CSV header of a sweep's rows, with the real
// model's columns when withModel.
func CSVHeader(withModel bool) []string {
	h := append([]string(nil), sweepColumns...)
	if withModel {
		h = append(h, modelColumns...)
	}
	return h
}

// CSV returns r as CSVHeader's columns; numbers in Go's shortest exact
// form, so a notebook reads back the very values.
func (r Row) CSV(withModel bool) []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	rec := []string{r.Policy, strconv.Itoa(r.Budget), strconv.Itoa(r.Sink), strconv.Itoa(r.Recent), strconv.Itoa(r.Heavy),
		f(r.DropShare), strconv.Itoa(r.Bits), r.Granularity,
		strconv.FormatInt(r.Bytes, 10), strconv.FormatInt(r.FullBytes, 10), f(r.Ratio),
		f(r.Mass), f(r.OutErr), f(r.KL), f(r.KErr), f(r.VErr)}
	if withModel {
		rec = append(rec, f(r.Top1), f(r.NextKL), f(r.PPL), f(r.PPLFull))
	}
	return rec
}

// WriteCSV writes rows as CSV: the header, then one record per row.
func WriteCSV(w io.Writer, rows []Row, withModel bool) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader(withModel)); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(r.CSV(withModel)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
