package index

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/store"
)

// TestBenchMailIndex indexes 50,000 synthetic messages and times
// SearchEmail. It runs only with SPIRIT_BENCH=1 (make bench) and prints
// "BENCH name value unit" lines.
func TestBenchMailIndex(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to measure")
	}
	const total = 50_000
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), store.FileName)
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	base := fileSize(t, path)
	x := New(st)
	acc, err := x.AddAccount(ctx, Account{Kind: KindIMAP, Name: "bench", Address: benchMe.Email})
	if err != nil {
		t.Fatal(err)
	}
	corpus := newBenchCorpus(rand.New(rand.NewPCG(1, 2)))
	msgs := corpus.messages(total)
	start := time.Now()
	for part := range slices.Chunk(msgs, BatchSize) {
		if err := x.Apply(ctx, acc.ID, part); err != nil {
			t.Fatal(err)
		}
	}
	indexing := time.Since(start)
	stats, err := x.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d messages in %d threads in %v (%.0f messages/s)", stats.Messages, stats.Threads, indexing.Round(time.Millisecond),
		float64(stats.Messages)/indexing.Seconds())
	var bodyBytes, ftsBytes, refs int64
	r := st.Reader()
	if err := r.QueryRowContext(ctx, `SELECT sum(length(CAST(body AS BLOB))) FROM mail_messages`).Scan(&bodyBytes); err != nil {
		t.Fatal(err)
	}
	if err := r.QueryRowContext(ctx, `SELECT sum(length(block)) FROM mail_fts_data`).Scan(&ftsBytes); err != nil {
		t.Fatal(err)
	}
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM mail_refs`).Scan(&refs); err != nil {
		t.Fatal(err)
	}
	t.Logf("per 10,000 messages: %.1f MB of own text, %.1f MB of compressed quoted history, %.1f MB of full-text index, %d threading keys",
		float64(bodyBytes)/(1<<20)/5, quotedMB(t, st)/5, float64(ftsBytes)/(1<<20)/5, refs/5)
	// Closing checkpoints the WAL into the file, so its size is the database's.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	grown := fileSize(t, path) - base
	if st, err = store.Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x = New(st)

	queries := corpus.queries(200)
	for _, q := range queries { // warm the page cache as a running Spirit would have it
		if _, err := x.SearchEmail(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, len(queries))
	empty := 0
	for _, q := range queries {
		t0 := time.Now()
		hits, err := x.SearchEmail(ctx, q)
		lat = append(lat, time.Since(t0))
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			empty++
		}
	}
	if os.Getenv("SPIRIT_BENCH_VERBOSE") == "1" {
		for i, q := range queries {
			t.Logf("%6.2f ms %+v", float64(lat[i].Microseconds())/1000, q)
		}
	}
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	t.Logf("search over %d queries: p50 %.2f ms, p95 %.2f ms, max %.2f ms; %d found nothing", len(lat), p(0.5), p(0.95), p(1), empty)
	if empty > len(queries)/10 {
		t.Errorf("%d of %d queries found nothing: the generator and the search disagree", empty, len(queries))
	}
	fmt.Printf("BENCH search_p95_ms_50k %.2f ms\n", p(0.95))
	fmt.Printf("BENCH index_mb_per_10k %.1f MB\n", float64(grown)/(1<<20)/(float64(stats.Messages)/10_000))
	fmt.Printf("BENCH index_messages_per_s_50k %.0f msg/s\n", float64(stats.Messages)/indexing.Seconds())
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

var benchMe = mail.Address{Name: "Dana Whitfield", Email: "dana.whitfield@hartleyross.com"}

// benchCorpus generates a lawyer's mailbox: matters, document types,
// counterparties at firms, threads of 1 to 8 messages with Outlook-style
// quoted history, some newsletters, drafts and headerless replies.
type benchCorpus struct {
	r       *rand.Rand
	people  []mail.Address
	matters []string
	docs    []string
	threads []benchThread // generated, for queries
	used    []mail.Address
}

var (
	benchFirst = strings.Fields(`Marcy Peter Janet Grant Carla Derek Victor Gina Alison Brenda Ian Kim Marisol Ray Sam Tom Evelyn Luis
		Hana Graham Nadia Priya Omar Lena Tobias Ingrid Mateo Aisha Wei Sofia Declan Ruth Felix Noor Jonah Keiko Farid Clara Hugo Dmitri`)
	benchLast = strings.Fields(`Howard Vance Cole Ellison Benitez Lunde Hale Alvarado Tran Hollins Whitford Tanaka Alvarez Baptiste Iqbal
		Reyes Shore Ortega Lee Oduya Petrov Raman Haddad Berg Keller Lind Ferreira Okafor Zhang Moreau Byrne Adler Vogel Sayed Marsh Ito`)
	benchFirms = strings.Fields(`greenleafmarkets.com vancekiley.com morrowcole.com ellisonmarsh.com benitezlawgroup.com lundeharper.com
		meridianlogistics.com tranmercer.com cascadeescrow.com northforkholdings.com firstmeridiantitle.com pryorgates.com harborlinecap.com
		corvidanalytics.com atlanticfederal.com kestrelcap.com oakember.com brightlinedental.com studionine.co westlakecrossing.com
		soundenv.com arborrail.com hollisgroup.com pinestreetowner.com brooklyngardens.com marketowner.com`)
	benchPlaces = strings.Fields(`Brooklyn Westlake Market Pine Hanover Liberty Madison Harbor Cedar Willow Summit Riverside Granite
		Lakeview Fulton Mercer Chelsea Ashland Beacon Orchard`)
	benchSuffix = []string{"Gardens", "Street", "Plaza", "Tower", "Commons", "Crossing", "Center", "Park"}
	benchParty  = strings.Fields(`Ruiz Kessler Hollis Meridian Arbor Greenleaf Kestrel Harborline Corvid Atlantic Cascade Northfork`)
	benchDocs   = []string{"SNDA", "Estoppel Certificate", "Rule 26(f) Report", "Closing Checklist", "Lease Amendment",
		"Purchase and Sale Agreement", "Title Commitment", "Deposition scheduling", "Tolling Agreement", "Engagement Letter",
		"Escrow Instructions", "Phase I ESA", "Rent commencement date", "Memorandum of Lease", "Good standing certificate",
		"Mediation statement", "Litigation hold", "Protective order", "Document requests", "Interrogatory responses",
		"Settlement term sheet", "Guaranty", "Assignment and Assumption", "Survey objections", "Zoning letter",
		"Loan commitment", "Insurance certificate", "Tenant notice letters", "Draft deed", "FIRPTA certificate"}
	benchSentences = []string{
		"Attached is the revised {doc} for {matter}; changes since the last draft are marked.",
		"Can you confirm whether the {doc} for {matter} can go out by Friday?",
		"The lender will not close without the {doc}, so we need it signed this week.",
		"Our client has questions about Section {n} of the {doc}.",
		"I spoke with opposing counsel about {matter} and they want to discuss the {doc} on a call.",
		"Please review the indemnification and notice provisions before we circulate the {doc}.",
		"We are still waiting on the signed {doc} from the tenant at {matter}.",
		"The title company flagged two exceptions on Schedule B-II that affect {matter}.",
		"Let me know if a short extension of the deadline for the {doc} works for you.",
		"Thanks, that resolves the open point on the {doc}.",
		"Per our call, the rent offset survives a foreclosure under the {doc} for {matter}.",
		"Could you send over the executed copy of the {doc} when you have it?",
		"The court entered the scheduling order; the {doc} is due on the {n}th.",
		"We accept your changes to paragraph {n} but not the knowledge qualifier.",
	}
)

type benchThread struct {
	subject string
	from    mail.Address
}

func newBenchCorpus(r *rand.Rand) *benchCorpus {
	c := &benchCorpus{r: r}
	for len(c.people) < 300 {
		f, l := benchFirst[r.IntN(len(benchFirst))], benchLast[r.IntN(len(benchLast))]
		firm := benchFirms[r.IntN(len(benchFirms))]
		a := mail.Address{Name: f + " " + l, Email: strings.ToLower(f[:1]+l) + "@" + firm}
		if !slices.ContainsFunc(c.people, func(p mail.Address) bool { return p.Email == a.Email }) {
			c.people = append(c.people, a)
		}
	}
	for range 150 {
		if r.IntN(3) == 0 {
			c.matters = append(c.matters, benchParty[r.IntN(len(benchParty))]+" v. "+benchParty[r.IntN(len(benchParty))])
		} else {
			c.matters = append(c.matters, fmt.Sprintf("%d %s %s", 10+r.IntN(3000), benchPlaces[r.IntN(len(benchPlaces))], benchSuffix[r.IntN(len(benchSuffix))]))
		}
	}
	c.docs = benchDocs
	return c
}

func (c *benchCorpus) body(matter, doc string) string {
	var b strings.Builder
	for range 3 + c.r.IntN(6) {
		s := strings.NewReplacer("{doc}", doc, "{matter}", matter, "{n}", fmt.Sprint(1+c.r.IntN(30))).
			Replace(benchSentences[c.r.IntN(len(benchSentences))])
		b.WriteString(s)
		if c.r.IntN(3) == 0 {
			b.WriteString("\n\n")
		} else {
			b.WriteString(" ")
		}
	}
	return strings.TrimSpace(b.String()) + "\n"
}

// messages generates n messages in threads, oldest thread first.
func (c *benchCorpus) messages(n int) []mail.Message {
	out := make([]mail.Message, 0, n)
	start := time.Date(2024, 7, 1, 8, 0, 0, 0, time.UTC)
	thread := 0
	for len(out) < n {
		thread++
		at := start.Add(time.Duration(thread) * 90 * time.Minute)
		matter, doc := c.matters[c.r.IntN(len(c.matters))], c.docs[c.r.IntN(len(c.docs))]
		subject := matter + " – " + doc
		if c.r.IntN(2) == 0 {
			subject = doc + " – " + matter
		}
		if c.r.IntN(20) == 0 { // a newsletter
			sender := mail.Address{Name: "Property Law Daily", Email: "no-reply@news.propertylawdaily.com"}
			m := mail.Message{RemoteID: fmt.Sprint("t", thread, ".0"), Folder: "INBOX", MessageID: fmt.Sprintf("<nl%d@news>", thread),
				Subject: "Property Law Daily: " + doc + " ruling in " + matter, From: sender, To: []mail.Address{benchMe},
				Date: at, Body: c.body(matter, doc), Headers: map[string]string{"list-id": "<daily.news>", "list-unsubscribe": "<https://x>"}}
			out = append(out, m)
			c.threads = append(c.threads, benchThread{m.Subject, sender})
			continue
		}
		other := c.people[c.r.IntN(len(c.people))]
		c.threads = append(c.threads, benchThread{subject, other})
		cc := []mail.Address{}
		for range c.r.IntN(3) {
			cc = append(cc, c.people[c.r.IntN(len(c.people))])
		}
		var refs []string
		var history string
		size := 1 + c.r.IntN(8)
		for k := 0; k < size && len(out) < n; k++ {
			from, to := other, benchMe
			if k%2 == 1 {
				from, to = benchMe, other
			}
			if k > 0 && c.r.IntN(4) == 0 {
				from = cc0(cc, other)
			}
			subj := subject
			if k > 0 {
				subj = "RE: " + subject
			}
			text := c.body(matter, doc)
			body := from.Name + ",\n\n" + text
			if history != "" {
				body += "\n-----Original Message-----\n" + history
			}
			m := mail.Message{
				RemoteID: fmt.Sprint("t", thread, ".", k), Folder: "INBOX",
				MessageID: fmt.Sprintf("<%016x.%d@mail.%s>", c.r.Uint64(), k, strings.SplitN(from.Email, "@", 2)[1]),
				Subject:   subj, From: from, To: []mail.Address{to}, Cc: cc, Date: at.Add(time.Duration(k*(1+c.r.IntN(20))) * time.Hour),
				Body: body,
			}
			if k > 0 && c.r.IntN(100) > 0 { // 1% of replies lost their headers on the way
				m.References = slices.Clone(refs)
				m.InReplyTo = refs[len(refs)-1]
			}
			if k == size-1 && from == benchMe && c.r.IntN(10) == 0 {
				m.Draft = true
			}
			refs = append(refs, m.MessageID)
			history = fmt.Sprintf("From: %s <%s>\nSent: %s\nSubject: %s\n\n%s", from.Name, from.Email, m.Date.Format(time.RFC1123), subj, body)
			out = append(out, m)
			if !slices.Contains(c.used, from) {
				c.used = append(c.used, from)
			}
		}
	}
	return out
}

func cc0(cc []mail.Address, other mail.Address) mail.Address {
	if len(cc) > 0 {
		return cc[0]
	}
	return other
}

// queries are what an analyst would ask: subjects as titles show them
// (with prefixes, hyphens for dashes, truncated), senders by name or
// address, free text.
func (c *benchCorpus) queries(n int) []SearchQuery {
	var qs []SearchQuery
	words := strings.Fields("estoppel lender foreclosure indemnification extension scheduling exceptions executed qualifier offset tenant signed deadline counsel")
	for i := range n {
		switch i % 10 {
		case 0, 1, 2: // subject as the title shows it
			s := c.threads[c.r.IntN(len(c.threads))].subject
			switch c.r.IntN(4) {
			case 0:
				s = "RE: " + strings.ReplaceAll(s, "–", "-")
			case 1:
				r := []rune(s)
				s = string(r[:len(r)*2/3]) + "…"
			case 2:
				s = "FW: " + s
			}
			qs = append(qs, SearchQuery{Subject: s})
		case 3, 4: // sender
			p := c.used[c.r.IntN(len(c.used))]
			switch c.r.IntN(3) {
			case 0:
				qs = append(qs, SearchQuery{Sender: p.Name})
			case 1:
				qs = append(qs, SearchQuery{Sender: p.Email})
			default:
				qs = append(qs, SearchQuery{Sender: strings.Fields(p.Name)[1]})
			}
		case 5, 6: // free text: a matter and a word
			m := c.matters[c.r.IntN(len(c.matters))]
			qs = append(qs, SearchQuery{Query: m + " " + words[c.r.IntN(len(words))]})
		case 7: // free text: a document type as a phrase
			qs = append(qs, SearchQuery{Query: `"` + c.docs[c.r.IntN(len(c.docs))] + `"`})
		case 8: // one common word
			qs = append(qs, SearchQuery{Query: words[c.r.IntN(len(words))]})
		case 9: // subject and sender together, as the glance asks
			th := c.threads[c.r.IntN(len(c.threads))]
			qs = append(qs, SearchQuery{Subject: th.subject, Sender: th.from.Name})
		}
	}
	return qs
}

// quotedMB is the size of the compressed quoted history.
func quotedMB(t *testing.T, st *store.Store) float64 {
	var n float64
	if err := st.Reader().QueryRowContext(t.Context(), `SELECT coalesce(sum(length(quoted)), 0) FROM mail_messages`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n / (1 << 20)
}
