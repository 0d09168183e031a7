// Package accounts turns a stored mail account into a live connector: it
// knows every connector kind, where each keeps its settings (in the index,
// never secrets) and its password or token (in the keychain).
package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/gmail"
	"github.com/spirit-app/spirit/agents/mail/graph"
	"github.com/spirit-app/spirit/agents/mail/imap"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/platform/secrets"
)

// IMAPConfig is an IMAP account's stored settings.
type IMAPConfig struct {
	Host     string `json:"host"`
	Port     int    `json:"port,omitempty"`
	TLS      string `json:"tls,omitempty"` // "implicit" (default), "starttls", "none" (loopback only)
	Username string `json:"username"`
}

// FileConfig is an mbox file's or Maildir folder's stored settings.
type FileConfig struct {
	Path string `json:"path"`
}

// OAuthConfig is a Microsoft 365 or Gmail account's stored settings: the
// app registration Spirit signs in with. A Google client secret for an
// installed app is not confidential, but lives in the keychain anyway.
type OAuthConfig struct {
	ClientID string `json:"client_id"`
	Tenant   string `json:"tenant,omitempty"` // Microsoft only; "common" by default
	BaseURL  string `json:"base_url,omitempty"`
	TokenURL string `json:"token_url,omitempty"` // for tests and sovereign clouds
	// CalendarURL is Google Calendar's API root (Graph's calendars are at
	// BaseURL); for tests.
	CalendarURL string `json:"calendar_url,omitempty"`
}

// PasswordKey and TokenKey name an account's credentials in the keychain.
func PasswordKey(id int64) string { return "mail/" + strconv.FormatInt(id, 10) + "/password" }

// TokenKey names an account's OAuth token.
func TokenKey(id int64) string { return "mail/" + strconv.FormatInt(id, 10) + "/token" }

// ScopeKey names the scopes an account's sign-in was last granted, as the
// service said them.
func ScopeKey(id int64) string { return "mail/" + strconv.FormatInt(id, 10) + "/scope" }

// ClientSecretKey names a Google client secret.
func ClientSecretKey(id int64) string { return "mail/" + strconv.FormatInt(id, 10) + "/client_secret" }

// ErrSignIn means the account needs the lawyer to sign in (again).
var ErrSignIn = errors.New("sign-in needed")

// Connect builds the connector for a, reading its credentials from sec.
func Connect(ctx context.Context, a index.Account, sec secrets.Store, log *slog.Logger) (mail.Connector, error) {
	if log == nil {
		log = slog.Default()
	}
	me := mail.Address{Email: a.Address, Name: a.Name}
	switch a.Kind {
	case index.KindIMAP:
		var c IMAPConfig
		if err := json.Unmarshal(a.Config, &c); err != nil {
			return nil, fmt.Errorf("account %d settings: %w", a.ID, err)
		}
		pw, err := sec.Get(ctx, PasswordKey(a.ID))
		if errors.Is(err, secrets.ErrNotFound) {
			return nil, fmt.Errorf("account %s has no password saved: %w", a.Name, ErrSignIn)
		}
		if err != nil {
			return nil, err
		}
		mode := imap.TLSImplicit
		switch c.TLS {
		case "starttls":
			mode = imap.TLSStartTLS
		case "none":
			mode = imap.TLSNone
		}
		return imap.New(imap.Config{Host: c.Host, Port: c.Port, TLS: mode, Username: c.Username,
			Password: pw, Address: me, Logger: log})
	case index.KindMbox, index.KindMaildir:
		var c FileConfig
		if err := json.Unmarshal(a.Config, &c); err != nil {
			return nil, fmt.Errorf("account %d settings: %w", a.ID, err)
		}
		opt := mbox.Options{From: me, Logger: log}
		if a.Kind == index.KindMaildir {
			return mbox.OpenMaildir(c.Path, opt)
		}
		return mbox.OpenMbox(c.Path, opt)
	case index.KindGraph, index.KindGmail:
		var c OAuthConfig
		if err := json.Unmarshal(a.Config, &c); err != nil {
			return nil, fmt.Errorf("account %d settings: %w", a.ID, err)
		}
		cfg, err := OAuth2Config(ctx, a.Kind, c, a.ID, sec)
		if err != nil {
			return nil, err
		}
		tok, err := secrets.LoadToken(ctx, sec, TokenKey(a.ID))
		if err != nil {
			return nil, fmt.Errorf("account %s: %w (%v)", a.Name, ErrSignIn, err)
		}
		ts := oauth.NewTokenSource(cfg, tok, oauth.TokenSourceOptions{Logger: log,
			Save: func(t *oauth2.Token) error { return SaveToken(context.Background(), sec, a.ID, t) }})
		if a.Kind == index.KindGraph {
			return graph.New(ts, graph.Options{BaseURL: c.BaseURL, Logger: log})
		}
		return gmail.New(ts, gmail.Options{BaseURL: c.BaseURL, Logger: log})
	}
	return nil, fmt.Errorf("account %d: unknown kind %q", a.ID, a.Kind)
}

// SaveToken keeps account id's token from a sign-in or a refresh and,
// when the service named them, the scopes it grants.
func SaveToken(ctx context.Context, sec secrets.Store, id int64, tok *oauth2.Token) error {
	if err := secrets.SaveToken(ctx, sec, TokenKey(id), tok); err != nil {
		return err
	}
	if scope, _ := tok.Extra("scope").(string); strings.TrimSpace(scope) != "" {
		return sec.Set(ctx, ScopeKey(id), strings.TrimSpace(scope))
	}
	return nil
}

// GrantedScopes are the scopes account id's sign-in was last granted; nil
// when unknown (a sign-in from before Spirit kept them).
func GrantedScopes(ctx context.Context, sec secrets.Store, id int64) ([]string, error) {
	s, err := sec.Get(ctx, ScopeKey(id))
	if errors.Is(err, secrets.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return strings.Fields(s), nil
}

// OAuth2Config is the sign-in configuration of a stored Microsoft or Google
// account; a Google client secret comes from the keychain.
func OAuth2Config(ctx context.Context, kind string, c OAuthConfig, id int64, sec secrets.Store) (*oauth2.Config, error) {
	var secret string
	if kind == index.KindGmail {
		s, err := sec.Get(ctx, ClientSecretKey(id))
		if err != nil && !errors.Is(err, secrets.ErrNotFound) {
			return nil, err
		}
		secret = s
	}
	return oauthConfig(kind, c, secret)
}

// oauthConfig builds the configuration for kind from c and a client secret.
func oauthConfig(kind string, c OAuthConfig, clientSecret string) (*oauth2.Config, error) {
	if c.ClientID == "" {
		return nil, fmt.Errorf("no app registration (client id) for %s: set one with --client-id", kind)
	}
	var cfg *oauth2.Config
	switch kind {
	case index.KindGraph:
		cfg = oauth.MicrosoftConfig(c.ClientID, c.Tenant)
	case index.KindGmail:
		cfg = oauth.GoogleConfig(c.ClientID, clientSecret)
	default:
		return nil, fmt.Errorf("%s accounts do not sign in", kind)
	}
	if c.TokenURL != "" {
		cfg.Endpoint.TokenURL = c.TokenURL
	}
	return cfg, nil
}
