package index

import (
	"strings"
	"testing"
)

func TestNormalizeSubject(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SNDA - Brooklyn Gardens", "snda - brooklyn gardens"},
		{"RE: SNDA - Brooklyn Gardens", "snda - brooklyn gardens"},
		{"Re: SNDA – Brooklyn Gardens", "snda - brooklyn gardens"},                // en dash
		{"RE: SNDA — Brooklyn Gardens", "snda - brooklyn gardens"},                // em dash
		{"RE: SNDA -- Brooklyn Gardens", "snda - brooklyn gardens"},               // double hyphen
		{"SNDA—Brooklyn Gardens", "snda - brooklyn gardens"},                      // em dash without spaces separates
		{"Corvid comments 6–17", "corvid comments 6-17"},                          // en dash in a range stays a hyphen
		{"Co-Tenancy Clauses", "co-tenancy clauses"},                              // a hyphenated word is not a separator
		{"RE: FW: RE: Closing Checklist", "closing checklist"},                    // any sequence of prefixes
		{"Fwd: Re: Fwd: Lease", "lease"},                                          // Gmail
		{"FW: Lease", "lease"},                                                    // Outlook
		{"Fw: Lease", "lease"},                                                    // Outlook, older
		{"AW: WG: Mietvertrag", "mietvertrag"},                                    // German
		{strings.Repeat("RE: FW: ", 20000) + "Lease", "lease"},                    // hostile: 160 KB of prefixes (was quadratic)
		{"SV: VS: Avtal", "avtal"},                                                // Swedish, Finnish
		{"TR: RE : Bail commercial", "bail commercial"},                           // French, space before colon
		{"RV: RE: Contrato", "contrato"},                                          // Spanish
		{"Antw: Huurovereenkomst", "huurovereenkomst"},                            // Dutch
		{"RE[2]: Lease", "lease"},                                                 // Outlook counters
		{"Re(3): Lease", "lease"},                                                 // counters
		{"Re^2: Lease", "lease"},                                                  // counters
		{"RE：Lease", "lease"},                                                     // full-width colon
		{"[EXTERNAL] RE: Estoppel", "estoppel"},                                   // gateway tag first
		{"RE: [EXTERNAL] Estoppel", "estoppel"},                                   // gateway tag after the prefix
		{"RE: [EXT] FW: [External Email] Estoppel", "estoppel"},                   // several
		{"*EXTERNAL* Re: Estoppel", "estoppel"},                                   // starred tag
		{"EXTERNAL: Re: Estoppel", "estoppel"},                                    // colon tag
		{"Estoppel [EXTERNAL]", "estoppel"},                                       // trailing tag
		{"[2024-0113] Status update", "[2024-0113] status update"},                // a matter tag tells threads apart
		{"Re: [lawyers-l] Rule 26(f)", "[lawyers-l] rule 26(f)"},                  // a list tag too
		{"[Fwd: Lease amendment]", "lease amendment"},                             // Netscape forward
		{"Lease amendment (fwd)", "lease amendment"},                              // old forward suffix
		{"  RE:   Closing\t Checklist \n  v4 ", "closing checklist v4"},           // whitespace collapsed
		{"RE:\u00a0Closing\u00a0Checklist", "closing checklist"},                  // no-break spaces
		{"Seller’s “Responses”", `seller's "responses"`},                          // typographic quotes
		{"ESTOPPEL CERTIFICATE", "estoppel certificate"},                          // case folded
		{"Straße", "strasse"},                                                     // full case folding
		{"Seller's Responses to Buyer's Du…", "seller's responses to buyer's du"}, // truncated
		{"Seller's Responses to Buyer's Du...", "seller's responses to buyer's du"},
		{"SNDA –…", "snda"}, // truncated right after a separator
		{"RE:", ""},
		{"", ""},
		{"Re: Re:", ""},
		{"Reply needed", "reply needed"}, // "Re" only counts before a colon
		{"Tre: x", "tre: x"},
		{"I: scope of engagement", "i: scope of engagement"}, // single-letter prefixes are not stripped
	} {
		if got := NormalizeSubject(tc.in); got != tc.want {
			t.Errorf("NormalizeSubject(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// Idempotent, so it composes with callers that normalise first.
		if got := NormalizeSubject(NormalizeSubject(tc.in)); got != tc.want {
			t.Errorf("NormalizeSubject twice (%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSubjectMatches(t *testing.T) {
	const full = "Purchase and Sale Agreement – 2200 Westlake Ave N – Seller's Responses to Buyer's Due Diligence Requests"
	for _, tc := range []struct {
		query, full string
		want        bool
	}{
		{"RE: Purchase and Sale Agreement – 2200 Westlake Ave N – Seller's Responses to Buyer's Du…", full, true},
		{"RE: Purchase and Sale Agreement - 2200 Westlake Ave N - Seller's Responses to Buyer's Du...", full, true},
		{"Purchase and Sale Agreement – 2200 Westlake…", full, true},
		{"Purchase and Sale Agreement – 2200 Westlake", full, false}, // not marked truncated: exact only
		{"Purchase and Sale Agreement – 2200 Westlake Ave N – Escrow…", full, false},
		{"RE: " + full, full, true},
		{"FW: RE: " + full, "Re: " + full, true},
		{"RE: SNDA - Brooklyn Gardens", "SNDA – Brooklyn Gardens", true},
		{"[EXTERNAL] RE: SNDA - Brooklyn Gardens", "SNDA - Brooklyn Gardens", true},
		{"SNDA - Brooklyn Gardens", "SNDA - Brooklyn Gardens (revised)", false},
		{"…", full, false}, // nothing left to match
		{"", full, false},
		{"RE: ", "", false},
	} {
		if got := SubjectMatches(tc.query, tc.full); got != tc.want {
			t.Errorf("SubjectMatches(%q, %q) = %v, want %v", tc.query, tc.full, got, tc.want)
		}
	}
}

func TestReplyAndForwardLike(t *testing.T) {
	for _, tc := range []struct {
		s          string
		reply, fwd bool
	}{
		{"RE: Lease", true, false},
		{"[EXTERNAL] Re: Lease", true, false},
		{"AW: Lease", true, false},
		{"FW: Lease", false, true},
		{"Fwd: Re: Lease", false, true},
		{"Re: Fwd: Lease", true, false},
		{"[Fwd: Lease]", false, true},
		{"Lease", false, false},
		{"Reply needed", false, false},
	} {
		if got := replyLike(tc.s); got != tc.reply {
			t.Errorf("replyLike(%q) = %v", tc.s, got)
		}
		if got := forwardLike(tc.s); got != tc.fwd {
			t.Errorf("forwardLike(%q) = %v", tc.s, got)
		}
	}
}

func TestSubjectSimilarity(t *testing.T) {
	q := subjectTokens(NormalizeSubject("Estoppel Certifcate — 44 Pine Street")) // OCR dropped an "i"
	if s := subjectSimilarity(q, subjectTokens(NormalizeSubject("Estoppel Certificate – 44 Pine Street")), false); s < 0.8 {
		t.Errorf("OCR misread: similarity %.2f", s)
	}
	q = subjectTokens(NormalizeSubject("Kessler v. Arbor Rail Services – Tolling Agreement"))
	if s := subjectSimilarity(q, subjectTokens(NormalizeSubject("New Matter Opened: Kessler v. Arbor Rail Services – Conflicts Cleared")), false); s >= 0.8 {
		t.Errorf("a different subject on the same matter: similarity %.2f", s)
	}
}

func TestQuoteStart(t *testing.T) {
	for _, tc := range []struct {
		name, body, text string
	}{
		{"outlook", "Thanks.\n\n-----Original Message-----\nFrom: A <a@x.com>\nSent: Monday\n\nHi\n", "Thanks.\n\n"},
		{"outlook separator", "Thanks.\n________________________________\nFrom: A <a@x.com>\nSent: Monday\n", "Thanks.\n"},
		{"outlook header block", "Thanks.\n\nFrom: A <a@x.com>\nSent: Monday, June 15\nTo: B\n\nHi\n", "Thanks.\n\n"},
		{"gmail", "Sure.\n\nOn Fri, Jun 12, 2026 at 9:00 AM Victor Hale <vhale@x.com> wrote:\n\n> Nadia,\n> hi\n", "Sure.\n\n"},
		{"gmail wrapped", "Sure.\n\nOn Fri, Jun 12, 2026 at 9:00 AM Victor Hale <vhale@x.com>\nwrote:\n> hi\n", "Sure.\n\n"},
		{"bare quote", "Agreed.\n\n> earlier\n>\n> text\n", "Agreed.\n\n"},
		{"interleaved answers stay", "> question one\nanswer one\n> question two\nanswer two\n", ""},
		{"no history", "Just text.\nFrom here on we agree.\n", ""},
		{"only history", "-----Original Message-----\nFrom: A\nSent: B\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, quoted := splitQuoted(tc.body)
			if tc.text == "" {
				if quoted != "" {
					t.Fatalf("split %q | %q, want no history", text, quoted)
				}
				return
			}
			if text != tc.text || text+quoted != tc.body {
				t.Fatalf("text %q quoted %q", text, quoted)
			}
		})
	}
	var c compressor
	for _, s := range []string{"", "short", strings.Repeat("-----Original Message-----\nFrom: Grant\n", 100)} {
		b, err := c.compress(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := decompress(b); err != nil || got != s {
			t.Fatalf("round trip of %d bytes: %d bytes, %v", len(s), len(got), err)
		}
	}
}
