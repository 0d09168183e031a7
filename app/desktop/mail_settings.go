package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
)

// mailView is Settings' "Mail accounts" page.
type mailView struct {
	g       *gui
	w       fyne.Window
	rows    *fyne.Container
	status  *widget.Label
	content fyne.CanvasObject
	// shown, when set, is told how many accounts the page shows, each
	// time it shows them (the first-run window's Mail step).
	shown func(accounts int)
	// openURL opens a sign-in page in the lawyer's browser.
	openURL func(*url.URL) error
}

func newMailView(g *gui, w fyne.Window) *mailView {
	v := &mailView{g: g, w: w, rows: container.NewVBox(), status: widget.NewLabel(""), openURL: g.fa.OpenURL}
	v.status.Importance = widget.LowImportance
	v.status.Wrapping = fyne.TextWrapWord
	add := widget.NewButtonWithIcon("Add account…", theme.ContentAddIcon(), nil)
	add.OnTapped = func() {
		menu := fyne.NewMenu("",
			fyne.NewMenuItem("IMAP (any provider, app password)…", v.addIMAP),
			fyne.NewMenuItem("Microsoft 365 / Outlook…", func() { v.addOAuth(index.KindGraph) }),
			fyne.NewMenuItem("Gmail…", func() { v.addOAuth(index.KindGmail) }),
			fyne.NewMenuItem("Mail folder (Thunderbird, mbox, Maildir)…", v.addFolder),
		)
		widget.ShowPopUpMenuAtRelativePosition(menu, w.Canvas(), fyne.NewPos(0, add.Size().Height), add)
	}
	syncNow := widget.NewButtonWithIcon("Sync now", theme.ViewRefreshIcon(), func() {
		v.g.core.SyncMailNow()
		v.status.SetText("Syncing… the tray shows progress.")
	})
	note := widget.NewLabel("Spirit keeps a private index of your mail on this computer so it can find the " +
		"thread you are looking at. Passwords and sign-ins live in the system keychain. " +
		"Removing an account deletes its indexed mail.")
	note.Wrapping = fyne.TextWrapWord
	v.content = container.NewBorder(note, container.NewVBox(v.status, container.NewHBox(add, syncNow)), nil, nil,
		container.NewVScroll(v.rows))
	return v
}

func (v *mailView) reload() {
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		m, err := v.g.core.MailAccounts(ctx)
		v.g.do(func() { v.show(m.Accounts, m.Stats, m.Errors, err) })
	}()
}

func (v *mailView) show(as []index.Account, stats index.Stats, errs map[int64]string, err error) {
	v.rows.RemoveAll()
	if err != nil {
		v.rows.Add(widget.NewLabel("Could not read accounts: " + err.Error()))
	} else if len(as) == 0 {
		v.rows.Add(widget.NewLabel("No mail accounts yet."))
	}
	for _, a := range as {
		a := a
		title := widget.NewLabelWithStyle(a.Name+"  ·  "+kindName(a.Kind), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		detail := "never synced"
		for _, s := range stats.Accounts {
			if s.ID == a.ID && !s.LastSync.IsZero() {
				detail = fmt.Sprintf("%d messages in %d threads · synced %s", s.Messages, s.Threads, s.LastSync.Local().Format("Jan 2 15:04"))
			}
		}
		info := widget.NewLabel(detail)
		if e := errs[a.ID]; e != "" {
			info.SetText("Last sync failed: " + e)
			info.Importance = widget.DangerImportance
		}
		info.Wrapping = fyne.TextWrapWord
		remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { v.remove(a) })
		edit := widget.NewButtonWithIcon(editAddressesLabel, theme.DocumentCreateIcon(), func() { v.editAddresses(a) })
		buttons := container.NewHBox(edit, remove)
		if a.Kind == index.KindGraph || a.Kind == index.KindGmail {
			// A sign-in that expired, or that was made before Spirit read
			// calendars, is renewed here, not by removing the account.
			again := widget.NewButtonWithIcon(signInAgainLabel, theme.LoginIcon(), func() { v.signInAgain(a) })
			buttons = container.NewHBox(again, edit, remove)
		}
		box := container.NewVBox(title, info)
		if addrs := a.Addresses(); len(addrs) > 0 {
			// The aliases too: a missing one makes replies from it look
			// like someone else's.
			box = container.NewVBox(title, widget.NewLabel(strings.Join(addrs, ", ")), info)
		}
		v.rows.Add(container.NewBorder(nil, nil, nil, buttons, box))
		v.rows.Add(widget.NewSeparator())
	}
	v.rows.Refresh()
	if v.shown != nil {
		v.shown(len(as))
	}
}

func kindName(kind string) string {
	switch kind {
	case index.KindIMAP:
		return "IMAP"
	case index.KindGraph:
		return "Microsoft 365"
	case index.KindGmail:
		return "Gmail"
	case index.KindMaildir:
		return "Maildir"
	}
	return "mail folder"
}

func (v *mailView) remove(a index.Account) {
	dialog.ShowConfirm("Remove account", "Remove “"+a.Name+"” and delete its indexed mail from this computer? "+
		"Your mailbox itself is not touched.", func(ok bool) {
		if !ok {
			return
		}
		v.run("Removing…", func(ctx context.Context) error {
			return v.g.core.RemoveMailAccount(ctx, a.ID)
		})
	}, v.w)
}

// run does slow account work off the main thread and reports the result;
// mail is synced after it.
func (v *mailView) run(busy string, work func(ctx context.Context) error) {
	v.do(busy, "Done.", true, work)
}

// do is run that says done when work succeeds, and syncs only if sync.
func (v *mailView) do(busy, done string, sync bool, work func(ctx context.Context) error) {
	v.status.SetText(busy)
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 10*time.Minute)
		defer cancel()
		err := work(ctx)
		v.g.do(func() {
			if err != nil {
				v.status.SetText("")
				dialog.ShowError(err, v.w)
			} else {
				v.status.SetText(done)
				if sync {
					v.g.core.SyncMailNow()
				}
			}
			v.reload()
		})
	}()
}

func (v *mailView) add(a index.Account, cfg any, cr func(ctx context.Context) (accounts.Credentials, error)) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		dialog.ShowError(err, v.w)
		return
	}
	a.Config = raw
	v.run("Checking the account…", func(ctx context.Context) error {
		_, err := v.g.core.AddMailAccount(ctx, a, cr)
		return err
	})
}

func (v *mailView) addIMAP() {
	host, user, address := widget.NewEntry(), widget.NewEntry(), addressEntry()
	port := widget.NewEntry()
	port.SetPlaceHolder("993")
	password := widget.NewPasswordEntry()
	starttls := widget.NewCheck("STARTTLS (port 143)", nil)
	host.SetPlaceHolder("imap.example.com")
	items := []*widget.FormItem{
		widget.NewFormItem("Server", host), widget.NewFormItem("Port", port), widget.NewFormItem("", starttls),
		widget.NewFormItem("User name", user), widget.NewFormItem("Password", password),
		addressItem(address),
	}
	dialog.ShowForm("Add IMAP account", "Add", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		c := accounts.IMAPConfig{Host: strings.TrimSpace(host.Text), Username: strings.TrimSpace(user.Text)}
		c.Port, _ = strconv.Atoi(strings.TrimSpace(port.Text))
		if starttls.Checked {
			c.TLS = "starttls"
		}
		if c.Host == "" || c.Username == "" {
			dialog.ShowError(errors.New("server and user name are needed"), v.w)
			return
		}
		var err error
		if c.Host, c.Port, err = accounts.HostPort(c.Host, c.Port); err != nil {
			dialog.ShowError(err, v.w)
			return
		}
		text := address.Text
		if strings.TrimSpace(text) == "" && strings.Contains(c.Username, "@") {
			text = c.Username
		}
		a, ok := v.addresses(index.Account{Kind: index.KindIMAP}, text)
		if !ok {
			return
		}
		pw := password.Text
		v.add(a, c,
			func(context.Context) (accounts.Credentials, error) { return accounts.Credentials{Password: pw}, nil })
	}, v.w)
}

func (v *mailView) addFolder() {
	path, address := widget.NewEntry(), addressEntry()
	path.SetPlaceHolder("~/.thunderbird/…/ImapMail/… or an .mbox file or a Maildir")
	browse := widget.NewButton("Browse…", func() {
		dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				path.SetText(u.Path())
			}
		}, v.w)
	})
	items := []*widget.FormItem{
		widget.NewFormItem("Folder or file", container.NewBorder(nil, nil, nil, browse, path)),
		addressItem(address),
	}
	dialog.ShowForm("Add mail folder", "Add", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		p := strings.TrimSpace(path.Text)
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		if p == "" || strings.TrimSpace(address.Text) == "" {
			dialog.ShowError(errors.New("the folder and your address are needed (your address tells your own messages apart)"), v.w)
			return
		}
		kind := index.KindMbox
		if mbox.IsMaildir(p) {
			kind = index.KindMaildir
		}
		a, ok := v.addresses(index.Account{Kind: kind, Name: filepath.Base(p)}, address.Text)
		if !ok {
			return
		}
		v.add(a, accounts.FileConfig{Path: p},
			func(context.Context) (accounts.Credentials, error) { return accounts.Credentials{}, nil })
	}, v.w)
}

func (v *mailView) addOAuth(kind string) {
	clientID, address := widget.NewEntry(), addressEntry()
	clientID.SetText(os.Getenv("SPIRIT_" + strings.ToUpper(kind) + "_CLIENT_ID"))
	secret := widget.NewPasswordEntry()
	items := []*widget.FormItem{widget.NewFormItem("App registration (client id)", clientID)}
	if kind == index.KindGmail {
		secret.SetText(os.Getenv("SPIRIT_GMAIL_CLIENT_SECRET"))
		items = append(items, widget.NewFormItem("Client secret", secret))
	}
	items = append(items, addressItem(address))
	dialog.ShowForm("Add "+kindName(kind)+" account", "Sign in", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		c := accounts.OAuthConfig{ClientID: strings.TrimSpace(clientID.Text)}
		a, ok := v.addresses(index.Account{Kind: kind}, address.Text)
		if !ok {
			return
		}
		cs := secret.Text
		v.add(a, c, func(ctx context.Context) (accounts.Credentials, error) {
			tok, err := accounts.SignIn(ctx, kind, c, cs, v.tellSignIn)
			return accounts.Credentials{Token: tok, ClientSecret: cs}, err
		})
	}, v.w)
}

const signInAgainLabel = "Sign in again…"

// signInAgain signs account a in again in the browser, with every
// permission Spirit asks for now; its mail stays.
func (v *mailView) signInAgain(a index.Account) {
	v.do("Signing in to "+a.Name+": finish in your browser…", "Signed in to "+a.Name+" again.", true,
		func(ctx context.Context) error {
			_, err := v.g.core.SignInMailAgain(ctx, a.ID, v.tellSignIn)
			return err
		})
}

// tellSignIn shows a sign-in's message (Microsoft's code to type) and
// opens its page in the browser.
func (v *mailView) tellSignIn(msg, link string) {
	v.g.do(func() { v.status.SetText(msg) })
	if link == "" {
		return
	}
	if u, err := url.Parse(link); err == nil {
		if err := v.openURL(u); err != nil {
			v.g.do(func() { v.status.SetText(msg + " Open " + link + " in your browser.") })
		}
	}
}

// addressEntry is where the lawyer types their own addresses at an
// account: the main one and any aliases, since a reply sent from an alias
// must count as theirs.
func addressEntry() *widget.Entry {
	e := widget.NewEntry()
	e.SetPlaceHolder("you@firm.com, alias@firm.com")
	return e
}

func addressItem(e *widget.Entry) *widget.FormItem {
	item := widget.NewFormItem("Your addresses", e)
	item.HintText = "every address you send from at this account, separated by commas"
	return item
}

// addresses sets a's address and aliases from what the lawyer typed, or
// says which entry is not an address. An account without a name is named
// for its first address.
func (v *mailView) addresses(a index.Account, text string) (index.Account, bool) {
	addrs, err := accounts.ParseAddresses(text)
	if err != nil {
		dialog.ShowError(err, v.w)
		return a, false
	}
	if len(addrs) > 0 {
		a.Address, a.Aliases = addrs[0], addrs[1:]
	}
	if a.Name == "" {
		a.Name = a.Address
	}
	return a, true
}

const editAddressesLabel = "Addresses…"

// aliasesText is the aliases as the lawyer edits them: one a line.
func aliasesText(a index.Account) string {
	addrs := a.Addresses()
	if len(addrs) < 2 {
		return ""
	}
	return strings.Join(addrs[1:], "\n")
}

// parseAliases reads the aliases typed one a line or separated by commas;
// an entry that is not an address is named.
func parseAliases(text string) ([]string, error) {
	return accounts.ParseAddresses(strings.Split(text, "\n")...)
}

// editAddresses lets the lawyer rename an account and change its other
// addresses, checked as they are typed; the account's own address stays.
// Nothing is downloaded again: past replies from an added alias count as
// the lawyer's at once.
func (v *mailView) editAddresses(a index.Account) {
	name := widget.NewEntry()
	name.SetText(a.Name)
	name.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("the account needs a name")
		}
		return nil
	}
	own := a.Address
	if own == "" {
		own = "none yet: the first address below becomes it"
	}
	aliases := widget.NewMultiLineEntry()
	aliases.SetPlaceHolder("alias@firm.com\nyou@firm.org")
	aliases.SetMinRowsVisible(4)
	aliases.SetText(aliasesText(a))
	aliases.Validator = func(s string) error { _, err := parseAliases(s); return err }
	aliasItem := widget.NewFormItem("Other addresses", aliases)
	aliasItem.HintText = "every other address you send from at this account, one a line or separated by commas"
	items := []*widget.FormItem{
		widget.NewFormItem("Name", name),
		widget.NewFormItem("Your address", widget.NewLabel(own)),
		aliasItem,
	}
	dialog.ShowForm("Addresses of “"+a.Name+"”", "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		// Checked again: the form's check only disables the button.
		list, err := parseAliases(aliases.Text)
		if err != nil {
			dialog.ShowError(err, v.w)
			return
		}
		n := strings.TrimSpace(name.Text)
		v.do("Saving…", "Saved. Mail you sent from these addresses counts as yours, in mail already indexed too.", false,
			func(ctx context.Context) error {
				_, err := v.g.core.EditMailAccount(ctx, a.ID, func(acc *index.Account) error {
					acc.Name, acc.Aliases = n, list
					return nil
				})
				return err
			})
	}, v.w)
}
