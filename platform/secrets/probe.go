package secrets

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
)

// KeychainState is what Probe finds of the OS keychain.
type KeychainState int

const (
	// KeychainNone: no keychain to use (no session bus, or no Secret
	// Service on it); Open keeps the file key in secrets.key.
	KeychainNone KeychainState = iota
	// KeychainReady: the keychain is there and unlocked.
	KeychainReady
	// KeychainLocked: the keychain is there but locked (or has no default
	// keyring yet); Open makes it ask the user to unlock it.
	KeychainLocked
	// KeychainStartable: no Secret Service runs, but the session bus would
	// start one the first time Spirit asks it for something.
	KeychainStartable
)

func (k KeychainState) String() string {
	switch k {
	case KeychainReady:
		return "ready"
	case KeychainLocked:
		return "locked"
	case KeychainStartable:
		return "startable"
	}
	return "none"
}

// FileState is what Probe finds of secrets.json and its key.
type FileState int

const (
	// FileNone: no secrets.json yet; nothing has been saved.
	FileNone FileState = iota
	// FileOK: secrets.json (or only its key) is there and every value
	// decrypts.
	FileOK
	// FileUnverified: secrets.json holds values whose key is kept in a
	// keychain that is locked or not reachable now, so they could not be
	// checked. Nothing is lost.
	FileUnverified
	// FileKeyLost: secrets.json holds values, but their key is neither in
	// the keychain nor in secrets.key (or is another key).
	FileKeyLost
	// FileDamaged: secrets.json or secrets.key cannot be read as Spirit
	// wrote it, or values in it do not decrypt (see Status.Damaged).
	FileDamaged
	// FileUnreadable: the files could not be read (permissions, I/O).
	FileUnreadable
)

func (f FileState) String() string {
	return [...]string{"none", "ok", "unverified", "key lost", "damaged", "unreadable"}[f]
}

// Status is what Probe finds out, without changing anything.
type Status struct {
	// Keychain is the state of the OS keychain; KeychainDetail names it or
	// says why it is not ready.
	Keychain       KeychainState
	KeychainDetail string
	// Backend is where Open would keep the file key: BackendKeychain when
	// there is a keychain (ready, or after it is unlocked or started),
	// else BackendFile.
	Backend string
	// File is the state of secrets.json at Path.
	File FileState
	Path string
	// KeyIn is where the file key is now: "keychain", "file" or "" (none
	// yet, or not readable now).
	KeyIn string
	// Values is how many secrets secrets.json holds; Damaged names those
	// that do not decrypt (sorted).
	Values  int
	Damaged []string
}

// Probe reports which backend Open would use in dataDir and whether the
// saved secrets can be read, without creating or writing anything and
// without starting, unlocking or prompting for a keychain: it is for
// commands that need no secret, such as `spirit doctor`.
//
// The error says what is wrong with the files when File is
// FileUnverified, FileKeyLost (both wrapping ErrKeyUnavailable),
// FileDamaged (ErrCorrupt) or FileUnreadable; it is nil otherwise.
func Probe(ctx context.Context, dataDir string) (Status, error) {
	account := keyAccountOf(filepath.Join(dataDir, FileName))
	kv := peekKeychain(ctx, account)
	kv.account = account
	return probeDir(dataDir, kv)
}

// keyAccountOf is the keychain account secrets.json at path names for its
// key: its own, else (written before folders had their own, or unreadable)
// the shared one.
func keyAccountOf(path string) string {
	if d, err := readData(path); err == nil && d != nil && d.KeyAccount != "" {
		return d.KeyAccount
	}
	return fileKeyAccount
}

// keychainView is what the keychain shows without being changed: its
// state and, only when it is ready, the file key's entry.
type keychainView struct {
	state   KeychainState
	detail  string
	account string // the entry's account
	key     string // the file key's entry as stored; "" unless keyErr is nil
	keyErr  error  // ErrNotFound, or why the entry could not be read
}

// probeDir follows the choices open makes, reading only.
func probeDir(dir string, kv keychainView) (Status, error) {
	s := Status{Keychain: kv.state, KeychainDetail: kv.detail, Backend: BackendFile, Path: filepath.Join(dir, FileName)}
	if kv.state != KeychainNone {
		s.Backend = BackendKeychain
	}
	result := func(st FileState, err error) (Status, error) {
		s.File = st
		return s, err
	}
	damagedOrUnreadable := func(err error) (Status, error) {
		if errors.Is(err, ErrCorrupt) {
			return result(FileDamaged, err)
		}
		return result(FileUnreadable, err)
	}

	data, err := readData(s.Path)
	if err != nil {
		return damagedOrUnreadable(err)
	}
	if data != nil {
		s.Values = len(data.Values)
	}
	keyPath := filepath.Join(dir, KeyFileName)
	fileKey, fkErr := readKeyFile(keyPath)
	if fkErr != nil && !errors.Is(fkErr, fs.ErrNotExist) {
		return damagedOrUnreadable(fkErr)
	}

	// The key Open would use: the keychain's when it has one, else the
	// key file's (which Open moves into a working keychain).
	var key []byte
	switch {
	case kv.state == KeychainReady && kv.keyErr == nil:
		k, err := decodeKey(kv.key)
		if err != nil {
			return result(FileDamaged, fmt.Errorf("%w: the key in the keychain (service %q, account %q): %w", ErrCorrupt, Service, kv.account, err))
		}
		key, s.KeyIn = k, "keychain"
	case fkErr == nil:
		key, s.KeyIn = fileKey, "file"
	}

	if s.Values == 0 {
		if data == nil && fkErr != nil {
			return result(FileNone, nil)
		}
		return result(FileOK, nil)
	}
	if key == nil {
		switch {
		case kv.state == KeychainReady && !errors.Is(kv.keyErr, ErrNotFound):
			return result(FileUnverified, fmt.Errorf("%w: reading the key to %s from the keychain: %w", ErrKeyUnavailable, s.Path, kv.keyErr))
		case kv.state == KeychainReady:
			return result(FileKeyLost, fmt.Errorf("%w: %s holds %d secrets, but their key is neither in the keychain nor in %s (was the keychain reset?)",
				ErrKeyUnavailable, s.Path, s.Values, keyPath))
		case kv.state != KeychainNone || data.KeyIn == "keychain":
			// A locked or stopped keychain may well hold the key, even
			// for a file that says "file": Open moves it there.
			return result(FileUnverified, fmt.Errorf("%w: the key to %s is kept in the OS keychain, which is not open now: %s",
				ErrKeyUnavailable, s.Path, kv.detail))
		default:
			return result(FileKeyLost, fmt.Errorf("%w: %s holds %d secrets but %s is missing",
				ErrKeyUnavailable, s.Path, s.Values, keyPath))
		}
	}
	if data.KeyID != keyID(key) {
		return result(FileKeyLost, fmt.Errorf("%w: %s was encrypted with another key than the one in the %s",
			ErrKeyUnavailable, s.Path, s.KeyIn))
	}

	// Decrypt every value, in memory only, so that damage shows now
	// rather than when Spirit next needs that password.
	block, err := aes.NewCipher(key)
	if err != nil {
		return result(FileDamaged, fmt.Errorf("%w: %w", ErrCorrupt, err))
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return result(FileDamaged, fmt.Errorf("secrets: %w", err))
	}
	for name, enc := range data.Values {
		if !decrypts(aead, name, enc) {
			s.Damaged = append(s.Damaged, name)
		}
	}
	if len(s.Damaged) > 0 {
		slices.Sort(s.Damaged)
		return result(FileDamaged, fmt.Errorf("%w: %d of the %d secrets in %s do not decrypt (altered or damaged): %q",
			ErrCorrupt, len(s.Damaged), s.Values, s.Path, s.Damaged))
	}
	return result(FileOK, nil)
}

// decrypts reports whether enc is the value of name sealed under aead,
// as fileStore.seal writes it.
func decrypts(aead cipher.AEAD, name, enc string) bool {
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(b) < aead.NonceSize() {
		return false
	}
	n := aead.NonceSize()
	_, err = aead.Open(nil, b[:n], b[n:], []byte(name))
	return err == nil
}
