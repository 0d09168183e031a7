package imap

import (
	"slices"
	"strings"
	"testing"

	goimap "github.com/emersion/go-imap/v2"
)

func TestSearchUIDs(t *testing.T) {
	var seq goimap.SeqSet
	seq.AddNum(1, 2)
	var open goimap.UIDSet
	open.AddRange(5, 0) // 5:*
	tests := []struct {
		name    string
		data    *goimap.SearchData
		want    []goimap.UID
		wantErr string
	}{
		{name: "no answer", data: nil},
		{name: "empty", data: &goimap.SearchData{}},
		{name: "plain set", data: &goimap.SearchData{All: goimap.UIDSetNum(3, 1, 2)}, want: []goimap.UID{1, 2, 3}},
		{name: "range", data: &goimap.SearchData{All: goimap.UIDSet{{Start: 4, Stop: 6}}}, want: []goimap.UID{4, 5, 6}},
		{name: "open-ended set is refused, not a panic", data: &goimap.SearchData{All: open}, wantErr: "open-ended"},
		{name: "sequence numbers are refused", data: &goimap.SearchData{All: seq}, wantErr: "sequence numbers"},
		{
			name:    "a set of billions is refused before it is expanded",
			data:    &goimap.SearchData{All: goimap.UIDSet{{Start: 1, Stop: 4_000_000_000}}},
			wantErr: "over",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := searchUIDs(tt.data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("searchUIDs() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("searchUIDs() error = %v", err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("searchUIDs() = %v, want %v", got, tt.want)
			}
		})
	}
}
