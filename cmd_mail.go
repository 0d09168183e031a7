package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/secrets"
)

const mailUsage = `usage:
  spirit mail add imap --host HOST[:PORT] --user USER [--port N] [--starttls | --tls none] [--address ADDR…] [--name NAME]
                                   (password from $SPIRIT_MAIL_PASSWORD or asked for)
  spirit mail add graph --client-id ID [--tenant T] [--address ADDR…]  (Microsoft 365 / Outlook)
  spirit mail add gmail --client-id ID [--client-secret S] [--address ADDR…]
  spirit mail add mbox|maildir PATH --address ADDR…                    (Thunderbird, archives)
                                   (--address again, or a comma-separated list, for your aliases)
  spirit mail edit ID [--name NAME] [--address ADDR…]                 (all your addresses at the account)
  spirit mail edit ID [--add-address ADDR…] [--remove-address ADDR…]  (add or remove aliases)
                                   (the account's own address stays; mail already indexed is not downloaded again)
  spirit mail signin ID                                               (sign in to a Microsoft 365 or Gmail account again,
                                   e.g. to allow its calendars)
  spirit mail list                                                    (accounts with their addresses)
  spirit mail sync [ID]
  spirit mail search [--sender S] [--subject S] [WORDS…]
  spirit mail remove ID                                               (deletes its indexed mail)`

// mailEnv is what every mail command opens.
type mailEnv struct {
	dir string
	st  *store.Store
	ix  *index.Index
	sec secrets.Store // opened by secrets() when a command needs a secret
}

// openMail opens the database, only to read it when readOnly (list and
// search work on a read-only data folder and beside a running Spirit).
func openMail(ctx context.Context, dataDir string, readOnly bool) (*mailEnv, error) {
	dir, err := platform.DataDir(dataDir)
	if err != nil {
		return nil, err
	}
	var st *store.Store
	if readOnly {
		st, err = store.OpenDirReadOnly(ctx, dir, store.ReadOnlyOptions{})
	} else {
		st, err = store.OpenDir(ctx, dir)
	}
	if err != nil {
		return nil, err
	}
	return &mailEnv{dir: dir, st: st, ix: index.New(st)}, nil
}

// lazySecrets is env's secret store, opened only when a secret is read,
// saved or deleted: adding or syncing a mail folder needs none.
type lazySecrets struct{ env *mailEnv }

func (l lazySecrets) Get(ctx context.Context, key string) (string, error) {
	sec, err := l.env.secrets()
	if err != nil {
		return "", err
	}
	return sec.Get(ctx, key)
}

func (l lazySecrets) Set(ctx context.Context, key, value string) error {
	sec, err := l.env.secrets()
	if err != nil {
		return err
	}
	return sec.Set(ctx, key, value)
}

func (l lazySecrets) Delete(ctx context.Context, key string) error {
	sec, err := l.env.secrets()
	if err != nil {
		return err
	}
	return sec.Delete(ctx, key)
}

// Backend is where the store keeps its key once opened, "" before.
func (l lazySecrets) Backend() string {
	if l.env.sec == nil {
		return ""
	}
	return l.env.sec.Backend()
}

// secrets opens the secret store on first need: opening it probes the OS
// keychain, which may start a keyring daemon or ask to unlock it — nothing
// a command that needs no password should cause.
func (env *mailEnv) secrets() (secrets.Store, error) {
	if env.sec == nil {
		sec, err := secrets.Open(env.dir)
		if err != nil {
			return nil, err
		}
		env.sec = sec
	}
	return env.sec, nil
}

func runMail(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, mailUsage)
		return errUsage
	}
	sub, rest := args[0], args[1:]
	fs, dataDir := flags("mail "+sub, stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, mailUsage) }
	switch sub {
	case "add":
		return mailAdd(ctx, rest, stdout, stderr)
	case "edit":
		return mailEdit(ctx, rest, stdout, stderr)
	case "list", "sync", "search", "remove", "signin":
	default:
		fmt.Fprintln(stderr, mailUsage)
		return errUsage
	}
	sender := fs.String("sender", "", "search: a name or address that wrote in the thread")
	subject := fs.String("subject", "", "search: the subject as a window title shows it")
	maxArgs := 1 // sync's or remove's account id
	switch sub {
	case "list":
		maxArgs = 0
	case "search":
		maxArgs = -1 // words
	}
	pos, err := parse(fs, rest, maxArgs)
	if err != nil {
		return err
	}
	quiet(stderr)
	env, err := openMail(ctx, *dataDir, sub == "list" || sub == "search")
	if err != nil {
		return err
	}
	defer env.st.Close()

	switch sub {
	case "list":
		return mailList(ctx, env, stdout)
	case "signin":
		id, err := accountArg(pos)
		if err != nil || id == 0 {
			fmt.Fprintln(stderr, "spirit: mail signin needs an account id (see spirit mail list)")
			return errUsage
		}
		return mailSignIn(ctx, env, id, stdout)
	case "remove":
		id, err := accountArg(pos)
		if err != nil || id == 0 {
			fmt.Fprintln(stderr, "spirit: mail remove needs an account id (see spirit mail list)")
			return errUsage
		}
		a, err := env.ix.Account(ctx, id)
		if err != nil {
			return err
		}
		sec, err := env.secrets()
		if err != nil {
			return err
		}
		// Its Outlook or Google calendars go with it (they read with its
		// sign-in): say so.
		cals, err := env.st.Calendars(ctx)
		if err != nil {
			return err
		}
		var gone []string
		for _, c := range cals {
			if c.Account == id {
				gone = append(gone, calendarName(c))
			}
		}
		if err := accounts.Remove(ctx, env.ix, sec, id); err != nil {
			return err
		}
		if len(gone) > 0 {
			fmt.Fprintf(stdout, "Removed %s, its indexed mail, and its calendars (%s) with their events.\n", a.Name, strings.Join(gone, ", "))
			return nil
		}
		fmt.Fprintf(stdout, "Removed %s and its indexed mail.\n", a.Name)
		return nil
	case "sync":
		id, err := accountArg(pos)
		if err != nil {
			fmt.Fprintln(stderr, "spirit: mail sync takes an optional account id")
			return errUsage
		}
		return mailSync(ctx, env, id, stdout, stderr)
	}
	// search
	hits, err := env.ix.SearchEmail(ctx, index.SearchQuery{Query: strings.Join(pos, " "), Sender: *sender, Subject: *subject})
	if err != nil {
		return err
	}
	if len(hits) == 0 {
		fmt.Fprintln(stdout, "No matching threads.")
		return nil
	}
	for _, h := range hits {
		me := ""
		if h.LatestFromMe {
			me = " (you wrote last)"
		}
		fmt.Fprintf(stdout, "#%d  %s  [%d messages, %s]\n    latest: %s <%s>, %s%s\n    %s\n",
			h.ThreadID, h.Subject, h.MessageCount, h.Match, h.Latest.From.Name, h.Latest.From.Email,
			h.Latest.Date.Local().Format("Mon Jan 2 15:04"), me, h.Latest.MessageID)
	}
	return nil
}

// accountArg is the optional account id among a command's arguments.
func accountArg(pos []string) (int64, error) {
	if len(pos) == 0 {
		return 0, nil
	}
	return strconv.ParseInt(pos[0], 10, 64)
}

func mailList(ctx context.Context, env *mailEnv, stdout io.Writer) error {
	as, err := env.ix.Accounts(ctx)
	if err != nil {
		return err
	}
	if len(as) == 0 {
		fmt.Fprintln(stdout, "No mail accounts. Add one with `spirit mail add …`.")
		return nil
	}
	stats, err := env.ix.Stats(ctx)
	if err != nil {
		return err
	}
	for _, a := range as {
		last := "never synced"
		if !a.LastSync.IsZero() {
			last = "synced " + a.LastSync.Local().Format("Jan 2 15:04")
		}
		counts := ""
		for _, as := range stats.Accounts {
			if as.ID == a.ID {
				counts = fmt.Sprintf("%d messages in %d threads", as.Messages, as.Threads)
			}
		}
		fmt.Fprintf(stdout, "%d  %-8s %s <%s>  %s  %s\n", a.ID, a.Kind, a.Name, strings.Join(a.Addresses(), ", "), last, counts)
	}
	return nil
}

func mailSync(ctx context.Context, env *mailEnv, only int64, stdout, stderr io.Writer) error {
	as, err := env.ix.Accounts(ctx)
	if err != nil {
		return err
	}
	var failed int
	for _, a := range as {
		if only != 0 && a.ID != only {
			continue
		}
		conn, err := accounts.Connect(ctx, a, lazySecrets{env}, nil)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", a.Name, err)
			failed++
			continue
		}
		start := time.Now()
		res, err := env.ix.SyncAccount(ctx, a.ID, conn, func(done, total int) {
			if total > 0 {
				fmt.Fprintf(stderr, "\r%s: %d/%d messages", a.Name, done, total)
			} else {
				fmt.Fprintf(stderr, "\r%s: %d messages", a.Name, done)
			}
		})
		conn.Close()
		fmt.Fprintln(stderr)
		if err != nil {
			fmt.Fprintf(stderr, "%s: sync failed (nothing lost; run again to continue): %v\n", a.Name, err)
			failed++
			continue
		}
		summary := ""
		if sk := mail.SkipSummary(res.Skipped); sk != "" {
			summary = "; " + sk
		}
		fmt.Fprintf(stdout, "%s: %d messages synced in %v%s\n", a.Name, res.Applied, time.Since(start).Round(time.Millisecond), summary)
		printSkips(stderr, a.Name, res.Skipped)
	}
	if failed > 0 {
		return errProblems
	}
	return nil
}

// printSkips lists the messages a sync left out, so the lawyer can find
// them in the mail program: a few, then how many more.
func printSkips(w io.Writer, account string, skips []mail.Skip) {
	const shown = 10
	for i, s := range skips {
		if i == shown {
			fmt.Fprintf(w, "%s: … and %d more skipped\n", account, len(skips)-shown)
			break
		}
		fmt.Fprintf(w, "%s: skipped %s %s: %s\n", account, s.Folder, s.Where, s.Reason)
	}
}

func mailAdd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, mailUsage)
		return errUsage
	}
	kind := args[0]
	fs, dataDir := flags("mail add "+kind, stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, mailUsage) }
	host := fs.String("host", "", "IMAP server")
	port := fs.Int("port", 0, "IMAP port (993, or 143 with --starttls)")
	starttls := fs.Bool("starttls", false, "IMAP: STARTTLS instead of implicit TLS")
	tlsMode := fs.String("tls", "", "IMAP: implicit (default), starttls, or none (only for a server on this computer)")
	user := fs.String("user", "", "IMAP user name")
	var addresses addressFlag
	fs.Var(&addresses, "address", "your own address in this account; repeat it, or give a comma-separated list, for your aliases")
	name := fs.String("name", "", "a name for the account")
	clientID := fs.String("client-id", os.Getenv("SPIRIT_"+strings.ToUpper(kind)+"_CLIENT_ID"), "app registration id")
	clientSecret := fs.String("client-secret", os.Getenv("SPIRIT_GMAIL_CLIENT_SECRET"), "Gmail: the installed app's client secret")
	tenant := fs.String("tenant", "", "Microsoft: tenant (default common)")
	// Flags may come before or after the path.
	pos, err := parse(fs, args[1:], 1)
	if err != nil {
		return err
	}
	quiet(stderr)
	env, err := openMail(ctx, *dataDir, false)
	if err != nil {
		return err
	}
	defer env.st.Close()

	// Addresses first: a typo is told before a password is asked for.
	addrs, err := accounts.ParseAddresses(addresses...)
	if err != nil {
		fmt.Fprintf(stderr, "spirit: --address: %v\n", err)
		return errUsage
	}
	acct := index.Account{Kind: kind, Name: *name}
	if len(addrs) > 0 {
		acct.Address, acct.Aliases = addrs[0], addrs[1:]
	}
	var cfg any
	switch kind {
	case index.KindIMAP:
		if *host == "" || *user == "" {
			fmt.Fprintln(stderr, "spirit: mail add imap needs --host and --user")
			return errUsage
		}
		h, p, err := accounts.HostPort(*host, *port)
		if err != nil {
			fmt.Fprintf(stderr, "spirit: --host: %v\n", err)
			return errUsage
		}
		c := accounts.IMAPConfig{Host: h, Port: p, Username: *user}
		if *starttls {
			c.TLS = "starttls"
		}
		if *tlsMode != "" {
			c.TLS = *tlsMode
		}
		if acct.Address == "" && strings.Contains(*user, "@") {
			if _, err := accounts.ParseAddresses(*user); err == nil {
				acct.Address = strings.ToLower(*user)
			}
		}
		cfg = c
	case index.KindMbox, index.KindMaildir:
		if len(pos) != 1 || acct.Address == "" {
			fmt.Fprintf(stderr, "spirit: mail add %s needs a PATH and --address (to tell your own messages apart)\n", kind)
			return errUsage
		}
		p, err := filepath.Abs(pos[0])
		if err != nil {
			return err
		}
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		cfg = accounts.FileConfig{Path: p}
	case index.KindGraph, index.KindGmail:
		if *clientID == "" {
			return fmt.Errorf("%s sign-in needs an app registration: pass --client-id (or set SPIRIT_%s_CLIENT_ID)", kind, strings.ToUpper(kind))
		}
		cfg = accounts.OAuthConfig{ClientID: *clientID, Tenant: *tenant}
	default:
		fmt.Fprintln(stderr, mailUsage)
		return errUsage
	}
	if acct.Name == "" {
		acct.Name = acct.Address
		if acct.Name == "" {
			acct.Name = kind
		}
	}
	if acct.Config, err = json.Marshal(cfg); err != nil {
		return err
	}
	cr, err := credentials(ctx, acct, *clientSecret, stdout, stderr)
	if err != nil {
		return err
	}
	if acct, err = accounts.Add(ctx, env.ix, lazySecrets{env}, acct, cr); err != nil {
		return err
	}
	if syncRunning(ctx, env.dir, (*api.Client).SyncMail) {
		fmt.Fprintf(stdout, "Added %s (account %d); the running Spirit is syncing it now.\n", acct.Name, acct.ID)
		return nil
	}
	fmt.Fprintf(stdout, "Added %s (account %d). Run `spirit mail sync %d` or let Spirit sync it.\n", acct.Name, acct.ID, acct.ID)
	return nil
}

// syncRunning asks the Spirit running on dir, if any, to sync now
// through sync ((*api.Client).SyncMail or SyncCalendars), so what was
// added here need not wait for its next round. No Spirit (or a stale
// api.json) is no error: the next start syncs it.
func syncRunning(ctx context.Context, dir string, sync func(*api.Client, context.Context) error) bool {
	info, err := api.ReadInfo(dir)
	if err != nil {
		return false
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return sync(api.NewClient(info), sctx) == nil
}

// addressFlag collects --address, given once or more.
type addressFlag []string

func (f *addressFlag) String() string { return strings.Join(*f, ", ") }

func (f *addressFlag) Set(s string) error {
	*f = append(*f, s)
	return nil
}

// credentials asks for the password or runs the sign-in flow.
func credentials(ctx context.Context, a index.Account, clientSecret string, stdout, stderr io.Writer) (accounts.Credentials, error) {
	cr := accounts.Credentials{ClientSecret: clientSecret}
	switch a.Kind {
	case index.KindIMAP:
		cr.Password = os.Getenv("SPIRIT_MAIL_PASSWORD")
		if cr.Password == "" {
			var err error
			if cr.Password, err = askSecret(stderr, "Password (an app password if your provider uses them): "); err != nil {
				return cr, err
			}
		}
	case index.KindGraph, index.KindGmail:
		var c accounts.OAuthConfig
		if err := json.Unmarshal(a.Config, &c); err != nil {
			return cr, err
		}
		tok, err := accounts.SignIn(ctx, a.Kind, c, clientSecret, func(msg, url string) {
			fmt.Fprintln(stdout, msg)
			if url != "" {
				openBrowser(url)
			}
		})
		if err != nil {
			return cr, err
		}
		cr.Token = tok
	}
	return cr, nil
}

// askSecret reads a line without echo from the terminal.
func askSecret(w io.Writer, prompt string) (string, error) {
	fmt.Fprint(w, prompt)
	defer fmt.Fprintln(w)
	if term.IsTerminal(int(os.Stdin.Fd())) {
		b, err := term.ReadPassword(int(os.Stdin.Fd()))
		return strings.TrimSpace(string(b)), err
	}
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("no password given: %w", err)
	}
	return strings.TrimSpace(line), nil
}

// openBrowser is best effort: the address is printed anyway.
func openBrowser(url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	_ = cmd.Start()
}

// mailEditArgs are `spirit mail edit`'s changes, read and checked.
type mailEditArgs struct {
	id   int64
	name *string // nil: keep the name
	// addresses, when set, are all the lawyer's addresses at the account
	// (its own address stays whether listed or not); add and remove
	// change the aliases instead.
	addresses   []string
	setAll      bool
	add, remove []string
}

// parseMailEdit reads `spirit mail edit`'s arguments. Every address is
// checked here, so a typo changes nothing; a problem is said on stderr
// and returned as errUsage.
func parseMailEdit(args []string, stderr io.Writer) (mailEditArgs, string, error) {
	fs, dataDir := flags("mail edit", stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, mailUsage) }
	name := fs.String("name", "", "a new name for the account")
	var all, add, remove addressFlag
	fs.Var(&all, "address", "all your addresses at this account; repeat it or give a comma-separated list")
	fs.Var(&add, "add-address", "an alias to add; repeat it or give a comma-separated list")
	fs.Var(&remove, "remove-address", "an alias to remove; repeat it or give a comma-separated list")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return mailEditArgs{}, "", err
	}
	usage := func(format string, a ...any) (mailEditArgs, string, error) {
		fmt.Fprintf(stderr, "spirit: "+format+"\n", a...)
		return mailEditArgs{}, "", errUsage
	}
	var e mailEditArgs
	if e.id, err = accountArg(pos); err != nil || e.id <= 0 {
		return usage("mail edit needs an account id (see spirit mail list)")
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["name"] {
		if strings.TrimSpace(*name) == "" {
			return usage("--name: an account needs a name")
		}
		n := strings.TrimSpace(*name)
		e.name = &n
	}
	if given["address"] && (given["add-address"] || given["remove-address"]) {
		return usage("give either --address (all your addresses at the account) or --add-address/--remove-address, not both")
	}
	for _, f := range []struct {
		flag string
		in   addressFlag
		out  *[]string
	}{{"address", all, &e.addresses}, {"add-address", add, &e.add}, {"remove-address", remove, &e.remove}} {
		if *f.out, err = accounts.ParseAddresses(f.in...); err != nil {
			return usage("--%s: %v", f.flag, err)
		}
		if given[f.flag] && len(*f.out) == 0 {
			return usage("--%s needs an address", f.flag)
		}
	}
	e.setAll = given["address"]
	for _, a := range e.add {
		if slices.Contains(e.remove, a) {
			return usage("%s is both added and removed: give it once", a)
		}
	}
	if e.name == nil && !e.setAll && len(e.add) == 0 && len(e.remove) == 0 {
		return usage("nothing to change: give --name, --address, --add-address or --remove-address")
	}
	return e, *dataDir, nil
}

// apply makes e's changes to a, the account as stored. Removing the
// account's own address, or one it does not have, is refused: it would
// say the lawyer meant another account or another address.
func (e mailEditArgs) apply(a *index.Account) error {
	if e.name != nil {
		// Last: an error below names the account as the lawyer knows it.
		defer func() { a.Name = *e.name }()
	}
	if e.setAll {
		a.Aliases = e.addresses
		return nil
	}
	own := strings.ToLower(a.Address)
	for _, r := range e.remove {
		if r == own {
			return fmt.Errorf("%s is the account's own address and stays; only its other addresses can be removed", r)
		}
		i := slices.IndexFunc(a.Aliases, func(s string) bool { return strings.EqualFold(s, r) })
		if i < 0 {
			return fmt.Errorf("%s is not one of the addresses of %s (%s)", r, a.Name, strings.Join(a.Addresses(), ", "))
		}
		a.Aliases = slices.Delete(a.Aliases, i, i+1)
	}
	a.Aliases = append(a.Aliases, e.add...)
	return nil
}

// mailEdit changes an account's name and addresses. Nothing is synced
// again: who wrote a message is decided when it is read, from the
// addresses stored then, so past replies from a new alias count at once.
func mailEdit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e, dataDir, err := parseMailEdit(args, stderr)
	if err != nil {
		return err
	}
	quiet(stderr)
	env, err := openMail(ctx, dataDir, false)
	if err != nil {
		return err
	}
	defer env.st.Close()
	a, err := env.ix.UpdateAccount(ctx, e.id, e.apply)
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintf(stderr, "spirit: there is no mail account %d; `spirit mail list` shows the accounts and their numbers\n", e.id)
		return errProblems
	}
	if err != nil {
		return err
	}
	addrs := a.Addresses()
	if len(addrs) > 0 {
		addrs[0] += " (its own address)"
	}
	fmt.Fprintf(stdout, "Updated %s (account %d): %s.\n", a.Name, a.ID, strings.Join(addrs, ", "))
	if len(a.Addresses()) > 0 {
		fmt.Fprintln(stdout, "Mail you sent from these addresses counts as yours, in mail already indexed too.")
	}
	return nil
}

// mailSignIn signs a Microsoft 365 or Gmail account in again, with every
// scope Spirit asks for now (calendars too), and keeps the new token.
func mailSignIn(ctx context.Context, env *mailEnv, id int64, stdout io.Writer) error {
	a, err := accounts.SignInAgain(ctx, env.ix, lazySecrets{env}, id, func(msg, url string) {
		fmt.Fprintln(stdout, msg)
		if url != "" {
			openBrowser(url)
		}
	})
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("there is no mail account %d; `spirit mail list` shows the accounts and their numbers", id)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Signed in to %s again. Its calendars can be added with `spirit calendar add %s --account %d`.\n",
		a.Name, map[string]string{index.KindGraph: store.CalendarMicrosoft, index.KindGmail: store.CalendarGoogle}[a.Kind], a.ID)
	return nil
}
