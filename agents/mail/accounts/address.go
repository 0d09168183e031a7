package accounts

import (
	"fmt"
	"net"
	netmail "net/mail"
	"slices"
	"strconv"
	"strings"

	"github.com/spirit-app/spirit/agents/mail/index"
)

// ParseAddresses reads the lawyer's own addresses at an account: each
// argument may hold one address or a comma-separated list ("a@x, b@y",
// `"Doe, Jane" <jane@x>`). It returns the bare addresses in lower case, in
// order, without repeats; the first is the account's address and the rest
// its aliases. An entry that is not an email address is an error naming it,
// since a stored non-address would leave the lawyer's own replies looking
// like someone else's.
func ParseAddresses(lists ...string) ([]string, error) {
	var out []string
	for _, list := range lists {
		if strings.TrimSpace(list) == "" {
			continue
		}
		addrs, err := netmail.ParseAddressList(list)
		if err != nil {
			return nil, badAddress(list, err)
		}
		for _, a := range addrs {
			if s := strings.ToLower(a.Address); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// badAddress names the entry of list that does not parse: the whole list
// when its parts cannot be told apart.
func badAddress(list string, err error) error {
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if _, perr := netmail.ParseAddress(part); perr != nil && !strings.Contains(part, `"`) {
			// The parser's own words ("no angle-addr") help no lawyer.
			return fmt.Errorf("%q is not an email address: write it like name@firm.com", part)
		}
	}
	return fmt.Errorf("%q is not a list of email addresses: separate them with commas, like a@firm.com, b@firm.com (%v)", list, err)
}

// SetAddresses validates a's address and aliases and stores them back
// normalised: the first address as Address, the others as Aliases.
func SetAddresses(a index.Account) (index.Account, error) {
	addrs, err := ParseAddresses(append([]string{a.Address}, a.Aliases...)...)
	if err != nil {
		return a, err
	}
	a.Address, a.Aliases = "", nil
	if len(addrs) > 0 {
		a.Address, a.Aliases = addrs[0], addrs[1:]
	}
	if len(a.Aliases) == 0 {
		a.Aliases = nil
	}
	return a, nil
}

// HostPort reads an IMAP server given as "host", "host:port", "[v6]:port"
// or a bare IPv6 address, with port the separately given port (0: none).
// A port in both places must agree.
func HostPort(server string, port int) (string, int, error) {
	server = strings.TrimSpace(server)
	host, p := server, ""
	switch {
	case strings.HasPrefix(server, "[") && strings.HasSuffix(server, "]"):
		host = server[1 : len(server)-1] // "[::1]" without a port
	case strings.Count(server, ":") == 1 || strings.HasPrefix(server, "["):
		h, ps, err := net.SplitHostPort(server)
		if err != nil {
			return "", 0, fmt.Errorf("server %q: %w", server, err)
		}
		host, p = h, ps
	}
	// More than one colon and no brackets: a bare IPv6 address.
	if host == "" {
		return "", 0, fmt.Errorf("server %q has no host name", server)
	}
	if port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("port %d is not a port number (1–65535)", port)
	}
	if p == "" {
		return host, port, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("server %q: %q is not a port number (1–65535)", server, p)
	}
	if port != 0 && port != n {
		return "", 0, fmt.Errorf("server %q names port %d but the port given is %d: give one", server, n, port)
	}
	return host, n, nil
}
