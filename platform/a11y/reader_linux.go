//go:build linux

package a11y

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// AT-SPI names on the buses.
const (
	busName      = "org.a11y.Bus"
	busPath      = "/org/a11y/bus"
	registryName = "org.a11y.atspi.Registry"
	rootPath     = "/org/a11y/atspi/accessible/root"

	ifaceAccessible = "org.a11y.atspi.Accessible"
	ifaceText       = "org.a11y.atspi.Text"
	ifaceCollection = "org.a11y.atspi.Collection"
	ifaceStatus     = "org.a11y.Status"
	ifaceProps      = "org.freedesktop.DBus.Properties"
)

// AT-SPI enumerations used in Collection rules (atspi-constants.h).
const (
	roleLandmark = 110
	stateActive  = 1
	stateShowing = 25

	matchAll = 1 // ATSPI_Collection_MATCH_ALL
	matchAny = 2 // ATSPI_Collection_MATCH_ANY

	sortCanonical = 1 // document order
)

// Bounds on the work of one MessageHeader call: a desktop has a few dozen
// accessible applications with a few windows each; Thunderbird's header
// subtree has about 40 objects.
const (
	maxApps      = 64
	maxFrames    = 32
	maxLandmarks = 16
	maxBanners   = 4
	maxNodes     = 200
	maxDepth     = 12
	// defaultTimeout bounds a call whose context has no deadline; a
	// normal call takes a few tens of milliseconds.
	defaultTimeout = time.Second
)

// Reader reads accessible trees over the AT-SPI bus. It is safe for
// concurrent use.
type Reader struct {
	session *dbus.Conn // session bus, for org.a11y.Status
	bus     *dbus.Conn // the AT-SPI bus
}

// ref is an accessible object's address: its application's bus name and
// object path.
type ref struct {
	Name string
	Path dbus.ObjectPath
}

// Open connects to the AT-SPI bus whose address the session bus's
// org.a11y.Bus gives (or $AT_SPI_BUS_ADDRESS, as libatspi honours). It
// returns an error wrapping ErrUnavailable when there is no session bus or
// no accessibility bus on it.
//
// It never starts at-spi-bus-launcher: where it is not running (every
// GNOME, KDE and XFCE session runs it; applications start it when they
// enable accessibility), no application has a tree to read.
func Open(ctx context.Context) (*Reader, error) {
	saddr, ok := sessionBusAddress()
	if !ok {
		return nil, fmt.Errorf("%w: no session bus", ErrUnavailable)
	}
	session, err := dbus.Connect(saddr, dbus.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		return nil, fmt.Errorf("%w: session bus: %v", ErrUnavailable, err)
	}
	addr := os.Getenv("AT_SPI_BUS_ADDRESS")
	if addr == "" {
		if err := session.Object(busName, busPath).CallWithContext(ctx, busName+".GetAddress", dbus.FlagNoAutoStart).Store(&addr); err != nil {
			session.Close()
			return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, busName, err)
		}
	}
	bus, err := dbus.Connect(addr, dbus.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		session.Close()
		return nil, fmt.Errorf("%w: accessibility bus %s: %v", ErrUnavailable, addr, err)
	}
	return &Reader{session: session, bus: bus}, nil
}

// sessionBusAddress returns the session bus address without ever
// launching a bus, as platform.SessionBusAddress does (godbus's
// ConnectSessionBus would autolaunch a stray daemon when none is set);
// repeated here to keep this package free of platform's cgo dependencies.
func sessionBusAddress() (string, bool) {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a, true
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		p := filepath.Join(rt, "bus")
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, true
		}
	}
	return "", false
}

// Close closes the reader's bus connections.
func (r *Reader) Close() error {
	return errors.Join(r.bus.Close(), r.session.Close())
}

// Enabled reports org.a11y.Status.IsEnabled: whether the session asks
// applications to expose their trees. Gecko (Thunderbird, Firefox) and GTK
// follow it even when it changes while they run; Spirit only reads it
// (see the package comment for why it does not set it).
func (r *Reader) Enabled(ctx context.Context) (bool, error) {
	var v dbus.Variant
	err := r.session.Object(busName, busPath).CallWithContext(ctx, ifaceProps+".Get", 0, ifaceStatus, "IsEnabled").Store(&v)
	if err != nil {
		return false, fmt.Errorf("%w: %s.IsEnabled: %v", ErrUnavailable, ifaceStatus, err)
	}
	on, _ := v.Value().(bool)
	return on, nil
}

// MessageHeader returns the message header that window w shows. It finds
// w's application on the AT-SPI bus by PID (else any application with a
// frame named w.Title), w's frame by its name, the window title (of two
// frames so named, the active one; with no title, the application's only
// active frame), then the showing "banner" landmarks in that frame with
// one Collection query, and reads the first that holds a sender (see
// HeaderFromTree). A title that names no frame is ErrUnavailable, never
// another window's header.
//
// Errors: ErrUnavailable (wrapped) when the bus, the application or its
// window is not in the tree, ErrNoHeader when the window has no message
// header showing, and ctx's error when it ends first. Without a deadline
// in ctx the call is bounded to one second.
func (r *Reader) MessageHeader(ctx context.Context, w Window) (MessageHeader, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
		defer cancel()
	}
	frame, err := r.findFrame(ctx, w)
	if err != nil {
		return MessageHeader{}, err
	}
	banners, err := r.banners(ctx, frame)
	if err != nil {
		return MessageHeader{}, err
	}
	for _, b := range banners {
		tree, parent, err := r.snapshot(ctx, b)
		if err != nil {
			return MessageHeader{}, err
		}
		h, ok := HeaderFromTree(tree, "")
		if !ok {
			continue
		}
		if h.Subject == "" && parent.Path != "" {
			// Thunderbird titles the header's document with the subject.
			title, _ := r.name(ctx, parent)
			h.Subject = clean(title)
		}
		return h, nil
	}
	return MessageHeader{}, ErrNoHeader
}

// findFrame returns w's accessible frame.
func (r *Reader) findFrame(ctx context.Context, w Window) (ref, error) {
	apps, err := r.children(ctx, ref{registryName, rootPath})
	if err != nil {
		// A call cut off by ctx says nothing of the tree: the caller
		// must not take it for a tree that is not there (and stop
		// asking for a while).
		if ctx.Err() != nil {
			return ref{}, ctx.Err()
		}
		return ref{}, fmt.Errorf("%w: registry: %v", ErrUnavailable, err)
	}
	if len(apps) > maxApps {
		apps = apps[:maxApps]
	}
	if w.PID > 0 {
		pids := make([]*dbus.Call, len(apps))
		for i, a := range apps {
			pids[i] = r.bus.BusObject().GoWithContext(ctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, nil, a.Name)
		}
		for i, c := range pids {
			var pid uint32
			if err := wait(ctx, c).Store(&pid); err != nil || int(pid) != w.PID {
				continue
			}
			if f, ok, err := r.frameOf(ctx, apps[i], w.Title); err != nil || ok {
				return f, err
			}
		}
		if err := ctx.Err(); err != nil {
			return ref{}, err
		}
	}
	// No PID, or the PID's application has no such window (a window
	// reparented by a launcher script): the title decides.
	if w.Title != "" {
		for _, a := range apps {
			if f, ok, err := r.frameOf(ctx, a, w.Title); err != nil || ok {
				return f, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		// The frames' names were not all read: the window may be there.
		return ref{}, err
	}
	return ref{}, fmt.Errorf("%w: no accessible window %q of pid %d", ErrUnavailable, w.Title, w.PID)
}

// frameOf returns app's frame named title or, when title is "", its only
// active frame. A title that names no frame is no match: the window may
// be one the toolkit does not expose (then the active frame would be
// another window, and its header a wrong one).
func (r *Reader) frameOf(ctx context.Context, app ref, title string) (ref, bool, error) {
	frames, err := r.children(ctx, app)
	if err != nil {
		if ctx.Err() != nil {
			return ref{}, false, ctx.Err()
		}
		return ref{}, false, nil // the application went away
	}
	if len(frames) > maxFrames {
		frames = frames[:maxFrames]
	}
	calls := make([]*dbus.Call, len(frames))
	for i, f := range frames {
		if title != "" {
			calls[i] = r.obj(f).GoWithContext(ctx, ifaceProps+".Get", 0, nil, ifaceAccessible, "Name")
		} else {
			calls[i] = r.obj(f).GoWithContext(ctx, ifaceAccessible+".GetState", 0, nil)
		}
	}
	var found []ref
	for i, f := range frames {
		if title != "" {
			var v dbus.Variant
			if wait(ctx, calls[i]).Store(&v) == nil && v.Value() == title {
				found = append(found, f)
			}
			continue
		}
		var st []uint32
		if wait(ctx, calls[i]).Store(&st) == nil && hasState(st, stateActive) {
			found = append(found, f)
		}
	}
	if err := ctx.Err(); err != nil {
		return ref{}, false, err
	}
	if len(found) > 1 && title != "" {
		// Two windows with one title (two compose windows "Write: (no
		// subject)"): the focused one is in front.
		var active []ref
		for _, f := range found {
			var st []uint32
			if r.obj(f).CallWithContext(ctx, ifaceAccessible+".GetState", 0).Store(&st) == nil && hasState(st, stateActive) {
				active = append(active, f)
			}
		}
		found = active
	}
	if len(found) == 1 {
		return found[0], true, nil
	}
	return ref{}, false, nil
}

// matchRule is AT-SPI's Collection match rule, (aiia{ss}iaiiasib).
type matchRule struct {
	States         []int32
	StateMatch     int32
	Attributes     map[string]string
	AttributeMatch int32
	Roles          []int32
	RoleMatch      int32
	Interfaces     []string
	InterfaceMatch int32
	Invert         bool
}

// bitset returns AT-SPI's bit set of the given enum values, in 32-bit
// words, with at least n words.
func bitset(n int, vals ...int) []int32 {
	out := make([]int32, n)
	for _, v := range vals {
		for len(out) <= v/32 {
			out = append(out, 0)
		}
		out[v/32] |= int32(uint32(1) << (v % 32))
	}
	return out
}

// banners returns frame's showing landmarks whose xml-roles is "banner",
// in document order. One Collection query walks the frame inside the
// application (matching by role: matching by attribute makes the
// toolkit compute every object's attributes, several times slower), so
// hidden tabs and the message list's collapsed pane are left out by their
// missing SHOWING state.
func (r *Reader) banners(ctx context.Context, frame ref) ([]ref, error) {
	rule := matchRule{
		States:         bitset(2, stateShowing),
		StateMatch:     matchAll,
		AttributeMatch: matchAll,
		Roles:          bitset(4, roleLandmark),
		RoleMatch:      matchAny,
		InterfaceMatch: matchAll,
	}
	var marks []ref
	err := r.obj(frame).CallWithContext(ctx, ifaceCollection+".GetMatches", 0, rule, uint32(sortCanonical), int32(maxLandmarks), true).Store(&marks)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: Collection.GetMatches: %v", ErrUnavailable, err)
	}
	attrs := make([]*dbus.Call, len(marks))
	for i, m := range marks {
		attrs[i] = r.obj(m).GoWithContext(ctx, ifaceAccessible+".GetAttributes", 0, nil)
	}
	var out []ref
	for i, m := range marks {
		var a map[string]string
		if err := wait(ctx, attrs[i]).Store(&a); err == nil && hasWord(a[attrXMLRoles], "banner") && len(out) < maxBanners {
			out = append(out, m)
		}
	}
	return out, ctx.Err()
}

// pending is an object of the snapshot whose properties are being fetched.
type pending struct {
	at    ref
	node  *Node
	depth int
	// inItem is set below a list item, where every text may be part of
	// a mailbox; elsewhere only leaves' texts are read.
	inItem bool
	// role and props come first; text, attributes and children only
	// for what is neither skipped nor (for attributes) a container.
	role, props, text, attrs, kids *dbus.Call
	childCount                     int32
}

// snapshot reads root's subtree into Nodes, one tree level at a time with
// every call of a level in flight at once: the application answers them
// one after the other, without a round trip between. Each object costs a
// call for its role and one for its name and description; then, unless
// its role is skipped (toolbars, buttons), one for its children, or for
// its attributes when it has none (only leaves such as <time> carry those
// the header needs), and one for its text if it is a leaf or inside a
// list item (a container's own text elsewhere is only separators). Each call costs the
// application about 40 µs, which is what bounds the read. It also returns
// root's parent.
func (r *Reader) snapshot(ctx context.Context, root ref) (*Node, ref, error) {
	top := &pending{at: root, node: &Node{}}
	level := []*pending{top}
	var parent ref
	count := 1
	for len(level) > 0 {
		for _, p := range level {
			o := r.obj(p.at)
			p.role = o.GoWithContext(ctx, ifaceAccessible+".GetRoleName", 0, nil)
			p.props = o.GoWithContext(ctx, ifaceProps+".GetAll", 0, nil, ifaceAccessible)
		}
		live := level[:0]
		for _, p := range level {
			n := p.node
			if err := wait(ctx, p.role).Store(&n.Role); err != nil {
				if ctx.Err() != nil {
					return nil, ref{}, ctx.Err()
				}
				continue // the object went away meanwhile
			}
			var props map[string]dbus.Variant
			if wait(ctx, p.props).Store(&props) == nil {
				n.Name, _ = props["Name"].Value().(string)
				n.Description, _ = props["Description"].Value().(string)
				p.childCount, _ = props["ChildCount"].Value().(int32)
				if p == top {
					var pr ref
					if props["Parent"].Store(&pr) == nil {
						parent = pr
					}
				}
			}
			if skipRoles[n.Role] {
				continue
			}
			o := r.obj(p.at)
			if p.childCount == 0 || p.inItem {
				p.text = o.GoWithContext(ctx, ifaceText+".GetText", 0, nil, int32(0), int32(-1))
			}
			if p.childCount > 0 && p.depth < maxDepth {
				p.kids = o.GoWithContext(ctx, ifaceAccessible+".GetChildren", 0, nil)
			} else {
				p.attrs = o.GoWithContext(ctx, ifaceAccessible+".GetAttributes", 0, nil)
			}
			live = append(live, p)
		}
		var next []*pending
		for _, p := range live {
			n := p.node
			var text string
			if p.text != nil && wait(ctx, p.text).Store(&text) == nil {
				n.Text = strings.ReplaceAll(text, "\uFFFC", "")
			}
			if p.attrs != nil {
				var attrs map[string]string
				if wait(ctx, p.attrs).Store(&attrs) == nil {
					for _, k := range []string{attrXMLRoles, attrDatetime} {
						if v, ok := attrs[k]; ok {
							if n.Attrs == nil {
								n.Attrs = map[string]string{}
							}
							n.Attrs[k] = v
						}
					}
				}
			}
			var kids []ref
			if p.kids == nil || wait(ctx, p.kids).Store(&kids) != nil {
				continue
			}
			for _, k := range kids {
				if count >= maxNodes {
					break
				}
				count++
				c := &Node{}
				n.Children = append(n.Children, c)
				next = append(next, &pending{at: k, node: c, depth: p.depth + 1, inItem: p.inItem || n.Role == "list item"})
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, ref{}, err
		}
		level = next
	}
	return top.node, parent, nil
}

func (r *Reader) obj(at ref) dbus.BusObject { return r.bus.Object(at.Name, at.Path) }

func (r *Reader) children(ctx context.Context, at ref) ([]ref, error) {
	var kids []ref
	err := r.obj(at).CallWithContext(ctx, ifaceAccessible+".GetChildren", 0).Store(&kids)
	return kids, err
}

func (r *Reader) name(ctx context.Context, at ref) (string, error) {
	var v dbus.Variant
	if err := r.obj(at).CallWithContext(ctx, ifaceProps+".Get", 0, ifaceAccessible, "Name").Store(&v); err != nil {
		return "", err
	}
	s, _ := v.Value().(string)
	return s, nil
}

// wait returns c once it is answered or ctx ends.
func wait(ctx context.Context, c *dbus.Call) *dbus.Call {
	select {
	case <-c.Done:
		return c
	case <-ctx.Done():
		return &dbus.Call{Err: ctx.Err()}
	}
}

func hasState(words []uint32, s int) bool {
	return s/32 < len(words) && words[s/32]&(1<<(s%32)) != 0
}

// hasWord reports whether the space-separated list s holds w
// (xml-roles may list several roles).
func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}
