package screen

import (
	"fmt"
	"hash/fnv"
	"image"
	"math/bits"
	"sync"
)

// Hash is a 64-bit perceptual hash of a screen: nearly identical screens
// have hashes a few bits apart (Hamming distance), different ones many.
type Hash uint64

// Distance is the number of differing bits (Hamming distance), 0 to 64.
func (h Hash) Distance(o Hash) int { return bits.OnesCount64(uint64(h ^ o)) }

func (h Hash) String() string { return fmt.Sprintf("%016x", uint64(h)) }

// Grid and dead zone of HashImage.
const (
	hashCols, hashRows = 48, 32
	// hashDeadZone is how many luminance levels (of 255) two neighbouring
	// cells must differ by for their comparison to count: blank areas and
	// flat colour then contribute nothing, whatever their noise.
	hashDeadZone = 2
)

// HashImage computes img's perceptual hash. It is a difference hash made
// fine enough for screens and folded to 64 bits:
//
//  1. img is reduced to a 48×32 grid of mean luminances (every pixel
//     counts, so a change anywhere moves some cell);
//  2. each cell is compared with its right and lower neighbour, giving
//     about 3,000 features of +1 (brighter), -1 (darker) or 0 (within the
//     dead zone: blank page, flat colour);
//  3. the feature vector is reduced to 64 bits by SimHash: bit b is the
//     sign of the sum of features, each multiplied by a fixed
//     pseudo-random ±1 for (feature, b). Two vectors at angle θ then
//     differ in about 64·θ/π bits.
//
// Why not the classic 9×8 dHash: on a screen of text its cells are about
// 140×100 pixels, their brightness order depends on layout, not words,
// and two different e-mails in the same window were measured 0-1 bits
// apart. With this hash they are 16-20 bits apart, a window moved by 40
// pixels about 20, while a blinking caret or a clock tick stay at 0-3.
// Its blind spot: small edits (one word typed) stay below the threshold,
// which is what "the same screen" should mean for a glance.
func HashImage(img image.Image) Hash {
	const cells = hashCols * hashRows
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return 0
	}
	var sum, cnt [cells]int64 // luma ×1000 per cell, pixels per cell
	cx := make([]int, w)
	for x := range w {
		cx[x] = x * hashCols / w
	}
	rgba, fast := img.(*image.RGBA)
	for y := range h {
		row := (y * hashRows / h) * hashCols
		if fast {
			pix := rgba.Pix[rgba.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := range w {
				p := pix[4*x : 4*x+3 : 4*x+3]
				// ITU-R BT.601 luma.
				sum[row+cx[x]] += 299*int64(p[0]) + 587*int64(p[1]) + 114*int64(p[2])
				cnt[row+cx[x]]++
			}
			continue
		}
		for x := range w {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			sum[row+cx[x]] += (299*int64(r) + 587*int64(g) + 114*int64(bl)) >> 8
			cnt[row+cx[x]]++
		}
	}
	var acc [64]int
	feature := uint64(0)
	// compare adds the feature for cells i and j: mean_i - mean_j beyond
	// the dead zone, in integers: (s_i·n_j - s_j·n_i) vs dz·1000·n_i·n_j.
	compare := func(i, j int) {
		f := feature
		feature++
		if cnt[i] == 0 || cnt[j] == 0 {
			return
		}
		d := sum[i]*cnt[j] - sum[j]*cnt[i]
		dz := hashDeadZone * 1000 * cnt[i] * cnt[j]
		var v int
		switch {
		case d > dz:
			v = 1
		case d < -dz:
			v = -1
		default:
			return
		}
		r := splitmix64(f)
		for bit := range acc {
			if r&(1<<bit) != 0 {
				acc[bit] += v
			} else {
				acc[bit] -= v
			}
		}
	}
	for y := range hashRows {
		for x := range hashCols {
			i := y*hashCols + x
			if x+1 < hashCols {
				compare(i, i+1)
			}
			if y+1 < hashRows {
				compare(i, i+hashCols)
			}
		}
	}
	var out Hash
	for bit, a := range acc {
		if a > 0 {
			out |= 1 << bit
		}
	}
	return out
}

// splitmix64 is a fixed pseudo-random function (SplitMix64's finaliser):
// the same feature gets the same random signs in every process and
// version, so hashes stay comparable.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// DefaultDedupThreshold is the largest Hamming distance at which two
// screens count as the same: identical captures are 0 apart, a caret or a
// clock flips 0-3 bits, another message or a moved window 15-20.
const DefaultDedupThreshold = 6

// dedupHistory is how many distinct screens a key remembers, so that going
// back and forth between two states of one window sends each only once.
const dedupHistory = 4

// dedupMaxKeys bounds memory: the least recently used keys are forgotten.
const dedupMaxKeys = 512

// Deduper remembers the screens already sent per key (a window, a mail
// thread) and says whether a new one is worth sending. It is safe for
// concurrent use.
type Deduper struct {
	threshold int

	mu   sync.Mutex
	tick uint64
	keys map[string]*dedupEntry
}

type dedupEntry struct {
	hashes []Hash // at most dedupHistory, oldest first
	used   uint64
}

// NewDeduper returns a Deduper that treats screens at most threshold bits
// apart as the same (DefaultDedupThreshold is a good start; 0 means only
// identical ones).
func NewDeduper(threshold int) *Deduper {
	return &Deduper{threshold: max(threshold, 0), keys: make(map[string]*dedupEntry)}
}

// IsNew reports whether h differs from every screen remembered for key,
// and remembers it if so. A near-duplicate is not remembered, so a screen
// that drifts slowly is still reported once it has drifted far enough from
// the last one sent.
func (d *Deduper) IsNew(key string, h Hash) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tick++
	e := d.keys[key]
	if e == nil {
		if len(d.keys) >= dedupMaxKeys {
			d.evictOldest()
		}
		e = &dedupEntry{}
		d.keys[key] = e
	}
	e.used = d.tick
	for _, old := range e.hashes {
		if old.Distance(h) <= d.threshold {
			return false
		}
	}
	if len(e.hashes) == dedupHistory {
		e.hashes = append(e.hashes[:0], e.hashes[1:]...)
	}
	e.hashes = append(e.hashes, h)
	return true
}

// Forget drops what is remembered for key, e.g. after a send failed.
func (d *Deduper) Forget(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.keys, key)
}

func (d *Deduper) evictOldest() {
	var oldest string
	first := true
	for k, e := range d.keys {
		if first || e.used < d.keys[oldest].used {
			oldest, first = k, false
		}
	}
	delete(d.keys, oldest)
}

// DedupKey is the key for sw's screens: its window and what the window
// shows (app and title, hashed, so the Deduper holds no titles).
func DedupKey(sw Switch) string {
	f := fnv.New64a()
	f.Write([]byte(sw.App))
	f.Write([]byte{0})
	f.Write([]byte(sw.Title))
	return fmt.Sprintf("%x/%016x", sw.Window, f.Sum64())
}
