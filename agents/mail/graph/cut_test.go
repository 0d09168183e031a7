package graph

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestCutStrings(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		max            int
	}{
		{"short strings pass", `{"a":"bc","d":[1,"e\"f",null]}`, `{"a":"bc","d":[1,"e\"f",null]}`, 10},
		{"a long string is cut", `{"body":"0123456789","n":2}`, `{"body":"0123","n":2}`, 4},
		{"an escape is not split", `{"b":"ab\u00e9cd"}`, `{"b":"ab\u00e9"}`, 3},
		{"a short escape is not split", `{"b":"a\"bc"}`, `{"b":"a\""}`, 2},
		{"a character is not split", `{"b":"aébc"}`, `{"b":"aé"}`, 2},
		{"a long key is cut too", `{"abcdef":1}`, `{"abc":1}`, 3},
		{"quotes inside strings do not end them", `["a\\","b\\\"c"]`, `["a\\","b\\\""]`, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time: the state carries across reads.
			got, err := io.ReadAll(newCutStrings(iotest.OneByteReader(strings.NewReader(tc.in)), tc.max))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || !json.Valid(got) {
				t.Errorf("cut to %d: %s, want %s", tc.max, got, tc.want)
			}
		})
	}
}
