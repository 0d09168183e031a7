//go:build linux

package xtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
)

// StatusNotifierItem / dbusmenu names, as used by fyne.io/systray and KDE.
const (
	watcherName     = "org.kde.StatusNotifierWatcher"
	watcherPath     = dbus.ObjectPath("/StatusNotifierWatcher")
	itemIface       = "org.kde.StatusNotifierItem"
	defaultItemPath = dbus.ObjectPath("/StatusNotifierItem")
	menuIface       = "com.canonical.dbusmenu"
)

// menuRecheck is how often WaitLayout re-reads the menu even without a
// LayoutUpdated signal, as a safety net for a missed or unsent signal.
const menuRecheck = time.Second

// TrayHost plays the desktop's system tray: it owns
// org.kde.StatusNotifierWatcher on a private bus so that apps register their
// tray icons with the test.
type TrayHost struct {
	conn  *dbus.Conn
	props *prop.Properties

	mu       sync.Mutex
	items    []*TrayItem     // live items, oldest first
	changed  chan struct{}   // closed and replaced whenever items changes
	seen     map[string]bool // owner+path of every registration
	departed map[string]bool // unique names that left the bus
	closed   bool
	pending  sync.WaitGroup // registrations being resolved
}

// TrayItem is a registered StatusNotifierItem, i.e. one app's tray icon.
type TrayItem struct {
	// BusName is the name the item registered with: the sender's unique
	// name (":1.5") when it registered an object path, as fyne.io/systray
	// does, otherwise the well-known name it gave.
	BusName string
	// Path is the item's object path, normally /StatusNotifierItem.
	Path dbus.ObjectPath
	// MenuPath is the item's dbusmenu object (its Menu property), e.g.
	// /StatusNotifierItem/menu for fyne.io/systray; empty if it has none.
	MenuPath dbus.ObjectPath

	host    *TrayHost
	owner   string // unique name of the item's connection; signals come from it
	menuErr error  // why MenuPath is empty

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on each menu signal
	gone    chan struct{}
}

// MenuItem is one entry of a tray menu (a dbusmenu layout node).
type MenuItem struct {
	// ID identifies the item for Event calls. fyne.io/systray renumbers
	// the whole menu on every refresh, so never keep an ID across changes.
	ID      int32
	Label   string // "label", with any "_" mnemonic markers as sent
	Enabled bool   // "enabled", default true
	Visible bool   // "visible", default true
	// Toggle is "toggle-type": "checkmark", "radio" or "". Fyne makes an
	// item a checkmark only while it is checked, and sends "" otherwise.
	Toggle    string
	Checked   bool // "toggle-state" == 1
	Separator bool // "type" == "separator"
	Children  []MenuItem
	// Props holds every property as sent, e.g. "children-display",
	// "shortcut", "icon-data".
	Props map[string]dbus.Variant
}

// watcher is the exported org.kde.StatusNotifierWatcher object; only its
// methods are visible on the bus.
type watcher struct{ h *TrayHost }

// RegisterStatusNotifierItem is called by apps to show a tray icon.
func (w watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	w.h.register(string(sender), service)
	return nil
}

// RegisterStatusNotifierHost is accepted and ignored: the test is the host.
func (w watcher) RegisterStatusNotifierHost(service string) *dbus.Error {
	return nil
}

func watcherIntrospection() introspect.Interface {
	return introspect.Interface{
		Name: watcherName,
		Methods: []introspect.Method{
			{Name: "RegisterStatusNotifierItem", Args: []introspect.Arg{{Name: "service", Type: "s", Direction: "in"}}},
			{Name: "RegisterStatusNotifierHost", Args: []introspect.Arg{{Name: "service", Type: "s", Direction: "in"}}},
		},
		Signals: []introspect.Signal{
			{Name: "StatusNotifierItemRegistered", Args: []introspect.Arg{{Name: "service", Type: "s"}}},
			{Name: "StatusNotifierItemUnregistered", Args: []introspect.Arg{{Name: "service", Type: "s"}}},
			{Name: "StatusNotifierHostRegistered"},
		},
		Properties: []introspect.Property{
			{Name: "RegisteredStatusNotifierItems", Type: "as", Access: "read"},
			{Name: "IsStatusNotifierHostRegistered", Type: "b", Access: "read"},
			{Name: "ProtocolVersion", Type: "i", Access: "read"},
		},
	}
}

// NewTrayHost connects to bus and becomes its StatusNotifierWatcher (and
// host). Start it before the app if possible; fyne.io/systray also
// re-registers when the watcher name appears later. It is closed at test
// cleanup.
func NewTrayHost(t testing.TB, bus *Bus) *TrayHost {
	t.Helper()
	h, err := newTrayHost(t, bus)
	if err != nil {
		t.Fatalf("xtest: tray host: %v", err)
	}
	return h
}

func newTrayHost(t testing.TB, bus *Bus) (*TrayHost, error) {
	conn, err := bus.connect()
	if err != nil {
		return nil, err
	}
	h := &TrayHost{
		conn:     conn,
		changed:  make(chan struct{}),
		seen:     make(map[string]bool),
		departed: make(map[string]bool),
	}
	dispatched := make(chan struct{})
	t.Cleanup(func() {
		h.mu.Lock()
		h.closed = true
		h.mu.Unlock()
		conn.Close() // fails pending calls and closes the signal channel
		h.pending.Wait()
		<-dispatched
	})

	// Subscribe before owning the name so that no item can register and
	// vanish unseen.
	sigs := make(chan *dbus.Signal, 64)
	conn.Signal(sigs)
	go func() {
		defer close(dispatched)
		for sig := range sigs {
			h.dispatch(sig)
		}
	}()
	if err := conn.AddMatchSignal(
		dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
	); err != nil {
		return nil, fmt.Errorf("watch NameOwnerChanged: %w", err)
	}
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(menuIface)); err != nil {
		return nil, fmt.Errorf("watch %s signals: %w", menuIface, err)
	}

	h.props, err = prop.Export(conn, watcherPath, prop.Map{
		watcherName: {
			"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
			"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
			"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("export watcher properties: %w", err)
	}
	// Properties first: the methods use h.props.
	if err := conn.Export(watcher{h}, watcherPath, watcherName); err != nil {
		return nil, fmt.Errorf("export watcher: %w", err)
	}
	node := &introspect.Node{
		Name: string(watcherPath),
		Interfaces: []introspect.Interface{
			introspect.IntrospectData,
			prop.IntrospectData,
			watcherIntrospection(),
		},
	}
	if err := conn.Export(introspect.NewIntrospectable(node), watcherPath, "org.freedesktop.DBus.Introspectable"); err != nil {
		return nil, fmt.Errorf("export watcher introspection: %w", err)
	}

	reply, err := conn.RequestName(watcherName, dbus.NameFlagDoNotQueue)
	if err != nil {
		return nil, fmt.Errorf("request %s: %w", watcherName, err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		return nil, fmt.Errorf("request %s: not primary owner (reply %d)", watcherName, reply)
	}
	return h, nil
}

// register accepts a registration. It runs on the bus's method-call
// goroutine, which must not wait for calls, so the item's menu path is
// fetched in the background and the item is published after that.
func (h *TrayHost) register(sender, service string) {
	busName, path := parseService(sender, service)
	key := sender + string(path)
	h.mu.Lock()
	if h.closed || h.seen[key] {
		h.mu.Unlock()
		return // shutting down, or a re-registration
	}
	h.seen[key] = true
	h.pending.Add(1)
	h.mu.Unlock()

	go func() {
		defer h.pending.Done()
		it := &TrayItem{
			BusName: busName,
			Path:    path,
			host:    h,
			owner:   sender,
			changed: make(chan struct{}),
			gone:    make(chan struct{}),
		}
		ctx, cancel := cleanupContext() // outlives the Register call
		defer cancel()
		it.MenuPath, it.menuErr = it.fetchMenuPath(ctx)

		h.mu.Lock()
		if h.departed[sender] {
			h.mu.Unlock()
			return
		}
		h.items = append(h.items, it)
		h.itemsChangedLocked()
		h.mu.Unlock()
		h.emit("StatusNotifierItemRegistered", it.service())
	}()
}

// parseService interprets RegisterStatusNotifierItem's argument: an object
// path on the sender's connection (fyne.io/systray sends
// "/StatusNotifierItem"), a bus name, or "name/path".
func parseService(sender, service string) (busName string, path dbus.ObjectPath) {
	switch {
	case strings.HasPrefix(service, "/"):
		return sender, dbus.ObjectPath(service)
	case strings.Contains(service, "/"):
		name, p, _ := strings.Cut(service, "/")
		return name, dbus.ObjectPath("/" + p)
	case service != "":
		return service, defaultItemPath
	}
	return sender, defaultItemPath
}

// dispatch routes a signal: menu signals wake WaitLayout, NameOwnerChanged
// retires the items of a connection that left the bus.
func (h *TrayHost) dispatch(sig *dbus.Signal) {
	if sig.Name == "org.freedesktop.DBus.NameOwnerChanged" {
		if len(sig.Body) != 3 {
			return
		}
		name, _ := sig.Body[0].(string)
		newOwner, _ := sig.Body[2].(string)
		if newOwner == "" {
			h.dropOwner(name)
		}
		return
	}
	if !strings.HasPrefix(sig.Name, menuIface+".") {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, it := range h.items {
		if it.owner == sig.Sender {
			it.notify()
		}
	}
}

func (h *TrayHost) dropOwner(name string) {
	var dropped []*TrayItem
	h.mu.Lock()
	if strings.HasPrefix(name, ":") { // unique names are never reused
		h.departed[name] = true
	}
	live := h.items[:0]
	for _, it := range h.items {
		if it.owner == name || it.BusName == name {
			dropped = append(dropped, it)
			close(it.gone)
			continue
		}
		live = append(live, it)
	}
	h.items = live
	if len(dropped) > 0 {
		h.itemsChangedLocked()
	}
	h.mu.Unlock()
	for _, it := range dropped {
		h.emit("StatusNotifierItemUnregistered", it.service())
	}
}

// itemsChangedLocked publishes the item list; h.mu must be held.
func (h *TrayHost) itemsChangedLocked() {
	services := make([]string, len(h.items))
	for i, it := range h.items {
		services[i] = it.service()
	}
	// A NameOwnerChanged still queued when Close ran (the item's owner
	// left as the test ended) finds the connection closed: SetMust
	// would panic on it. Close sets closed under h.mu before closing the
	// connection, so holding h.mu here makes the check sound.
	if h.props != nil && !h.closed {
		h.props.SetMust(watcherName, "RegisteredStatusNotifierItems", services)
	}
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *TrayHost) emit(signal, service string) {
	// Best effort: only real desktop hosts listen to these.
	_ = h.conn.Emit(watcherPath, watcherName+"."+signal, service)
}

// Items returns the currently registered items, oldest first.
func (h *TrayHost) Items() []*TrayItem {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*TrayItem(nil), h.items...)
}

// WaitItem waits until an app has registered a tray item and returns the
// most recently registered one that is still on the bus.
func (h *TrayHost) WaitItem(ctx context.Context) (*TrayItem, error) {
	for {
		h.mu.Lock()
		var it *TrayItem
		if n := len(h.items); n > 0 {
			it = h.items[n-1]
		}
		changed := h.changed
		h.mu.Unlock()
		if it != nil {
			return it, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a tray item to register with %s: %w", watcherName, ctx.Err())
		}
	}
}

func (it *TrayItem) service() string {
	return it.BusName + string(it.Path)
}

func (it *TrayItem) obj(path dbus.ObjectPath) dbus.BusObject {
	return it.host.conn.Object(it.owner, path)
}

func (it *TrayItem) fetchMenuPath(ctx context.Context) (dbus.ObjectPath, error) {
	v, err := it.Property(ctx, "Menu")
	if err != nil {
		return "", err
	}
	p, ok := v.Value().(dbus.ObjectPath)
	if !ok || !p.IsValid() {
		return "", fmt.Errorf("tray item %s: Menu property is %v, not an object path", it.service(), v)
	}
	return p, nil
}

// Property reads a property of the org.kde.StatusNotifierItem interface,
// e.g. "Title", "Status", "Id", "Menu".
func (it *TrayItem) Property(ctx context.Context, name string) (dbus.Variant, error) {
	var v dbus.Variant
	err := it.obj(it.Path).CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, itemIface, name).Store(&v)
	if err != nil {
		return v, fmt.Errorf("tray item %s: get %s: %w", it.service(), name, err)
	}
	return v, nil
}

// Gone is closed when the item's app has left the bus.
func (it *TrayItem) Gone() <-chan struct{} { return it.gone }

// notify wakes menu waiters; the host's mutex is held.
func (it *TrayItem) notify() {
	it.mu.Lock()
	close(it.changed)
	it.changed = make(chan struct{})
	it.mu.Unlock()
}

// changes returns a channel that is closed at the next menu signal.
func (it *TrayItem) changes() <-chan struct{} {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.changed
}

// layoutNode is the dbusmenu layout struct (ia{sv}av).
type layoutNode struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

// Layout reads the whole menu and returns its top-level items.
func (it *TrayItem) Layout(ctx context.Context) ([]MenuItem, error) {
	root, err := it.readLayout(ctx, 0)
	if err != nil {
		return nil, err
	}
	return root.Children, nil
}

// readLayout calls GetLayout for the subtree at id, recursing into
// submenus the reply left out: fyne.io/systray answers the first GetLayout
// after every menu reset with depth 1 only, whatever was asked.
func (it *TrayItem) readLayout(ctx context.Context, id int32) (MenuItem, error) {
	if it.MenuPath == "" {
		return MenuItem{}, fmt.Errorf("tray item %s has no menu: %w", it.service(), it.menuErr)
	}
	var rev uint32
	var node layoutNode
	err := it.obj(it.MenuPath).CallWithContext(ctx, menuIface+".GetLayout", 0, id, int32(-1), []string{}).Store(&rev, &node)
	if err != nil {
		return MenuItem{}, fmt.Errorf("tray item %s: GetLayout(%d): %w", it.service(), id, err)
	}
	return it.convert(ctx, node)
}

func (it *TrayItem) convert(ctx context.Context, node layoutNode) (MenuItem, error) {
	m := MenuItem{
		ID:      node.ID,
		Enabled: true,
		Visible: true,
		Props:   node.Props,
	}
	for k, v := range node.Props {
		switch k {
		case "label":
			m.Label, _ = v.Value().(string)
		case "enabled":
			if b, ok := v.Value().(bool); ok {
				m.Enabled = b
			}
		case "visible":
			if b, ok := v.Value().(bool); ok {
				m.Visible = b
			}
		case "toggle-type":
			m.Toggle, _ = v.Value().(string)
		case "toggle-state":
			n, ok := asInt(v.Value())
			m.Checked = ok && n == 1
		case "type":
			m.Separator = v.Value() == "separator"
		}
	}
	for _, cv := range node.Children {
		var child layoutNode
		if err := dbus.Store([]any{cv.Value()}, &child); err != nil {
			return m, fmt.Errorf("menu item %d: child %v: %w", node.ID, cv, err)
		}
		c, err := it.convert(ctx, child)
		if err != nil {
			return m, err
		}
		m.Children = append(m.Children, c)
	}
	if len(m.Children) == 0 && node.ID != 0 && node.Props["children-display"].Value() == "submenu" {
		sub, err := it.readLayout(ctx, node.ID)
		if err != nil {
			return m, err
		}
		m.Children = sub.Children
	}
	return m, nil
}

// asInt accepts any DBus integer; the spec says int32 for toggle-state.
func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case int16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case byte:
		return int64(n), true
	}
	return 0, false
}

// Find reads the menu and returns the first item, depth first, whose label
// is exactly label.
func (it *TrayItem) Find(ctx context.Context, label string) (MenuItem, error) {
	return it.FindFunc(ctx, Label(label))
}

// FindFunc reads the menu and returns the first item, depth first, that
// matches.
func (it *TrayItem) FindFunc(ctx context.Context, match func(MenuItem) bool) (MenuItem, error) {
	items, err := it.Layout(ctx)
	if err != nil {
		return MenuItem{}, err
	}
	if m, ok := FindIn(items, match); ok {
		return m, nil
	}
	return MenuItem{}, fmt.Errorf("%w in %s", ErrNoMenuItem, FormatMenu(items))
}

// ErrNoMenuItem is returned by Find when no item matches.
var ErrNoMenuItem = errors.New("no matching menu item")

// Click clicks the item labelled exactly label. See ClickFunc.
func (it *TrayItem) Click(ctx context.Context, label string) error {
	if err := it.ClickFunc(ctx, Label(label)); err != nil {
		return fmt.Errorf("click %q: %w", label, err)
	}
	return nil
}

// ClickFunc waits until an item matching match is in the menu, visible and
// enabled, then sends it a "clicked" Event, as a desktop does when the user
// picks it. It reads the layout afresh (ids change on every refresh) and
// only clicks from a layout that no menu signal has invalidated meanwhile.
//
// Like a real click, it does not wait for the app to react, and
// fyne.io/systray drops a click it cannot deliver at once (it logs "no menu
// item with ID" for a stale id): follow it with WaitLayout or another
// observable condition.
func (it *TrayItem) ClickFunc(ctx context.Context, match func(MenuItem) bool) error {
	var target MenuItem
	var why string
	err := it.waitMenu(ctx, func(items []MenuItem) bool {
		m, ok := FindIn(items, match)
		switch {
		case !ok:
			why = "no matching item in " + FormatMenu(items)
		case m.Separator:
			why = "matched a separator"
		case !m.Visible:
			why = fmt.Sprintf("item %q is hidden", m.Label)
		case !m.Enabled:
			why = fmt.Sprintf("item %q is disabled", m.Label)
		default:
			target = m
			return true
		}
		return false
	}, true)
	if err != nil {
		if why != "" {
			return fmt.Errorf("%s: %w", why, err)
		}
		return err
	}
	err = it.obj(it.MenuPath).CallWithContext(ctx, menuIface+".Event", 0,
		target.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix())).Err
	if err != nil {
		return fmt.Errorf("tray item %s: Event(%d, clicked): %w", it.service(), target.ID, err)
	}
	return nil
}

// WaitLayout waits until cond holds for the menu's top-level items,
// re-reading the menu on each LayoutUpdated (or other dbusmenu) signal and,
// as a safety net, every second. ctx is the only timeout. It fails early if
// the item leaves the bus.
func (it *TrayItem) WaitLayout(ctx context.Context, cond func([]MenuItem) bool) error {
	return it.waitMenu(ctx, cond, false)
}

// waitMenu is WaitLayout; with stable set, cond's verdict only counts if
// no menu signal arrived while the layout was read.
func (it *TrayItem) waitMenu(ctx context.Context, cond func([]MenuItem) bool, stable bool) error {
	ticker := time.NewTicker(menuRecheck)
	defer ticker.Stop()
	var last []MenuItem
	for {
		changed := it.changes()
		items, err := it.Layout(ctx)
		if err != nil {
			return err
		}
		last = items
		if cond(items) {
			select {
			case <-changed:
				if stable {
					continue // the menu moved under us; look again
				}
			default:
			}
			return nil
		}
		select {
		case <-changed:
		case <-ticker.C:
		case <-it.gone:
			return fmt.Errorf("tray item %s left the bus; last menu %s", it.service(), FormatMenu(last))
		case <-ctx.Done():
			return fmt.Errorf("waiting on tray menu, last %s: %w", FormatMenu(last), ctx.Err())
		}
	}
}

// FindIn returns the first item, depth first, that matches.
func FindIn(items []MenuItem, match func(MenuItem) bool) (MenuItem, bool) {
	for _, m := range items {
		if match(m) {
			return m, true
		}
		if c, ok := FindIn(m.Children, match); ok {
			return c, true
		}
	}
	return MenuItem{}, false
}

// Label matches items whose label is exactly label.
func Label(label string) func(MenuItem) bool {
	return func(m MenuItem) bool { return !m.Separator && m.Label == label }
}

// LabelPrefix matches items whose label starts with prefix, e.g. for
// labels that carry a changing status.
func LabelPrefix(prefix string) func(MenuItem) bool {
	return func(m MenuItem) bool { return !m.Separator && strings.HasPrefix(m.Label, prefix) }
}

// FormatMenu renders items compactly for logs and errors, e.g.
// `["Pause listening" [x]"Mute" "More"["A" "B"] --- "Quit"]`, marking
// checked [x], disabled (off) and hidden (hidden).
func FormatMenu(items []MenuItem) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, m := range items {
		if i > 0 {
			b.WriteByte(' ')
		}
		if m.Separator {
			b.WriteString("---")
			continue
		}
		if m.Checked {
			b.WriteString("[x]")
		}
		fmt.Fprintf(&b, "%q", m.Label)
		if !m.Enabled {
			b.WriteString("(off)")
		}
		if !m.Visible {
			b.WriteString("(hidden)")
		}
		if len(m.Children) > 0 {
			b.WriteString(FormatMenu(m.Children))
		}
	}
	b.WriteByte(']')
	return b.String()
}
