package intent

import (
	"regexp"
	"strconv"
	"strings"
)

// Recognisers write numbers as digits or as words, depending on the engine
// and on the number; the grammar reads both.

var units = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
	"thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19,
}

var tens = map[string]int{
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

var ordinalWords = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
	"seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11,
	"twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
	"sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
	"twentieth": 20, "thirtieth": 30,
}

var (
	digits     = regexp.MustCompile(`^\d{1,4}$`)
	ordinalNum = regexp.MustCompile(`^(\d{1,2})(?:st|nd|rd|th)$`)
)

// cardinal reads a whole number below 10000 at ts[i]: "15", "fifteen",
// "twenty five", "twenty-five". n is the number of tokens used (0: none).
func cardinal(ts []token, i int) (v, n int) {
	w := word(ts, i)
	if digits.MatchString(w) {
		v, _ := strconv.Atoi(w)
		return v, 1
	}
	if t, u, ok := strings.Cut(w, "-"); ok {
		if tv, ok := tens[t]; ok {
			if uv, ok := units[u]; ok && uv > 0 && uv < 10 {
				return tv + uv, 1
			}
		}
		return 0, 0
	}
	if v, ok := units[w]; ok {
		return v, 1
	}
	if tv, ok := tens[w]; ok {
		if uv, ok := units[word(ts, i+1)]; ok && uv > 0 && uv < 10 {
			return tv + uv, 2
		}
		return tv, 1
	}
	return 0, 0
}

// ordinal reads a day of the month at ts[i]: "3rd", "third", "twenty-first".
func ordinal(ts []token, i int) (v, n int) {
	w := word(ts, i)
	if m := ordinalNum.FindStringSubmatch(w); m != nil {
		v, _ := strconv.Atoi(m[1])
		return v, 1
	}
	if t, o, ok := strings.Cut(w, "-"); ok {
		if tv, ok := tens[t]; ok {
			if ov, ok := ordinalWords[o]; ok && ov < 10 {
				return tv + ov, 1
			}
		}
		return 0, 0
	}
	if v, ok := ordinalWords[w]; ok {
		return v, 1
	}
	if tv, ok := tens[w]; ok {
		if ov, ok := ordinalWords[word(ts, i+1)]; ok && ov < 10 {
			return tv + ov, 2
		}
	}
	return 0, 0
}

// amount reads how many of a unit: a cardinal, a decimal ("1.5"), or the
// spoken approximations "a", "a couple of", "a few".
func amount(ts []token, i int) (v float64, n int) {
	switch {
	case words(ts, i, "a", "couple", "of"):
		return 2, 3
	case words(ts, i, "a", "couple"), words(ts, i, "couple", "of"):
		return 2, 2
	case words(ts, i, "couple"):
		return 2, 1
	case words(ts, i, "a", "few"):
		return 3, 2
	case words(ts, i, "few"):
		return 3, 1
	case words(ts, i, "a|an"):
		return 1, 1
	}
	if f, err := strconv.ParseFloat(word(ts, i), 64); err == nil && strings.Contains(word(ts, i), ".") && f > 0 && f < 1000 {
		return f, 1
	}
	c, n := cardinal(ts, i)
	return float64(c), n
}
