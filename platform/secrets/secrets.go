// Package secrets keeps Spirit's passwords and OAuth tokens.
//
// Values live in dataDir/secrets.json, each encrypted with AES-256-GCM under
// one random 32-byte file key. The file key lives in the OS keychain
// (macOS Keychain, Windows Credential Manager, the Secret Service on
// Linux) when there is one, and otherwise in dataDir/secrets.key.
//
// Why not store every value in the keychain directly: keychains cap a
// secret's size (Windows 2560 bytes, macOS about 4 KB) and OAuth token JSON
// can exceed that; one small key in the keychain has no such limit, works
// the same on every OS, and costs one keychain access (one possible
// unlock prompt) per process instead of one per value.
//
// Without a keychain, the key file next to the data protects only against
// casual reading and backups that skip it; Backend then reports
// BackendFile so that `spirit doctor` can warn.
package secrets

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Backend names, as Store.Backend reports them.
const (
	// BackendKeychain: the file key is in the OS keychain.
	BackendKeychain = "keychain"
	// BackendFile: no keychain; the file key sits in dataDir/secrets.key.
	BackendFile = "file (no keychain)"
)

// File names inside dataDir.
const (
	FileName    = "secrets.json"
	KeyFileName = "secrets.key"
)

// Service is the keychain service name Spirit's entries are filed under.
const Service = "Spirit"

// fileKeyAccount is the keychain entry that held the file key of every
// data folder before each folder had an entry of its own (keyAccountPrefix).
// A folder that still uses it is moved to its own entry when opened; the
// shared entry itself stays, for any other folder that still uses it.
const fileKeyAccount = "secrets-file-key"

// keyAccountPrefix begins the keychain account of one data folder's file
// key; a random suffix follows, and secrets.json names the account
// (KeyAccount). One entry per folder lets "Delete all Spirit data" remove
// the folder's entry (Forget) and nothing another folder needs.
const keyAccountPrefix = fileKeyAccount + "-"

// newKeyAccount names a new folder's keychain entry.
func newKeyAccount() string {
	b := make([]byte, 8)
	rand.Read(b)
	return keyAccountPrefix + hex.EncodeToString(b)
}

var (
	// ErrNotFound: no value under that key.
	ErrNotFound = errors.New("secrets: not found")
	// ErrCorrupt: secrets.json or secrets.key can't be read or decrypted.
	// The files are left as they are; Reset moves them aside.
	ErrCorrupt = errors.New("secrets: secret store damaged")
	// ErrKeyUnavailable: secrets.json was encrypted with a key kept in the
	// keychain, and the keychain doesn't have it (any more, or right now).
	ErrKeyUnavailable = errors.New("secrets: key to the secret store unavailable")
)

// Store keeps secrets by name. Implementations are safe for concurrent use.
type Store interface {
	// Get returns the value stored under key, or an error wrapping
	// ErrNotFound.
	Get(ctx context.Context, key string) (string, error)
	// Set stores value under key, replacing any previous value.
	Set(ctx context.Context, key, value string) error
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Backend says where the file key lives: BackendKeychain or BackendFile.
	Backend() string
}

// Open opens the store in dataDir (created if missing), probing the OS
// keychain and falling back to a key file only where no keychain exists.
func Open(dataDir string) (Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	log := slog.Default().With("component", "secrets")
	var kc keychain
	if err := probe(ctx, osKeychain{service: Service}); err != nil {
		log.Info("no usable OS keychain; keeping the secrets key in a file", "reason", err)
	} else {
		kc = osKeychain{service: Service}
	}
	return open(ctx, dataDir, kc, log)
}

// fileData is secrets.json.
type fileData struct {
	Version int `json:"version"`
	// KeyID fingerprints the file key, so a wrong key is reported as
	// such rather than as tampered values.
	KeyID string `json:"key_id"`
	// KeyIn records where the key was kept ("keychain" or "file"), so a
	// missing key gets an error that says where to look.
	KeyIn string `json:"key_in"`
	// KeyAccount is the keychain account holding the key when KeyIn is
	// "keychain"; "" in a file written before folders had entries of
	// their own (the shared fileKeyAccount).
	KeyAccount string `json:"key_account,omitempty"`
	// Values maps names to base64(nonce || AES-GCM ciphertext). Names are
	// in clear; they say which accounts exist, not their secrets.
	Values map[string]string `json:"values"`
}

const fileVersion = 1

type fileStore struct {
	dir        string
	aead       cipher.AEAD
	keyID      string
	keyIn      string
	keyAccount string // the keychain account of the key; "" for a key file
	backend    string

	// mu serialises read-modify-write cycles in this process. The file is
	// re-read on every call, so two Stores on the same directory see each
	// other's writes; Spirit runs as a single instance, so there is no
	// cross-process lock.
	mu sync.Mutex
}

func open(ctx context.Context, dir string, kc keychain, log *slog.Logger) (*fileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("secrets: creating %s: %w", dir, err)
	}
	data, err := readData(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	hasValues := data != nil && len(data.Values) > 0

	var key []byte
	var account string
	keyIn, backend := "file", BackendFile
	keyPath := filepath.Join(dir, KeyFileName)
	if kc != nil {
		keyIn, backend = "keychain", BackendKeychain
		key, account, err = keyFromKeychain(ctx, kc, dir, data, log)
	} else {
		key, err = keyFromFile(keyPath, data)
	}
	if err != nil {
		return nil, err
	}

	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	s := &fileStore{dir: dir, aead: aead, keyID: keyID(key), keyIn: keyIn, keyAccount: account, backend: backend}
	if hasValues && data.KeyID != s.keyID {
		return nil, fmt.Errorf("%w: %s was encrypted with another key than the one in the %s; sign in to the accounts again after moving it aside (secrets.Reset)",
			ErrKeyUnavailable, filepath.Join(dir, FileName), keyIn)
	}
	return s, nil
}

// keyFromKeychain returns the file key from the keychain and the account
// it is kept under, creating it or moving it there as needed. Each data
// folder has an entry of its own, named in secrets.json, which is written
// (naming the entry) as the entry is made:
//   - a new folder's key: secrets.json first, then the entry, so that a
//     crash between leaves a named entry to make again, never an entry
//     that nothing names;
//   - a key moved from secrets.key or from the shared entry: the entry
//     first, read back, then secrets.json, then the key file goes, so
//     that a crash between loses no key (it may leave an unnamed entry).
func keyFromKeychain(ctx context.Context, kc keychain, dir string, data *fileData, log *slog.Logger) ([]byte, string, error) {
	keyPath := filepath.Join(dir, KeyFileName)
	hasValues := data != nil && len(data.Values) > 0
	account := ""
	if data != nil {
		account = data.KeyAccount
	}
	readEntry := func(account string) ([]byte, error) {
		enc, err := kc.Get(ctx, account)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, err
			}
			return nil, fmt.Errorf("secrets: reading the key from the keychain: %w", err)
		}
		key, err := decodeKey(enc)
		if err != nil {
			return nil, fmt.Errorf("%w: the key in the keychain (service %q, account %q): %w", ErrCorrupt, Service, account, err)
		}
		return key, nil
	}
	// moveIn puts key under a new entry of this folder's, checks it, and
	// names the entry in secrets.json.
	moveIn := func(key []byte, from string) ([]byte, string, error) {
		acct := newKeyAccount()
		if err := kc.Set(ctx, acct, encodeKey(key)); err != nil {
			return nil, "", fmt.Errorf("secrets: moving the key into the keychain: %w", err)
		}
		if back, err := kc.Get(ctx, acct); err != nil || back != encodeKey(key) {
			kc.Delete(context.WithoutCancel(ctx), acct)
			return nil, "", fmt.Errorf("secrets: the keychain did not keep the key (%v); %s left in place", err, from)
		}
		d := data
		if d == nil {
			d = &fileData{Values: map[string]string{}}
		}
		d.Version, d.KeyID, d.KeyIn, d.KeyAccount = fileVersion, keyID(key), "keychain", acct
		if err := writeData(dir, d); err != nil {
			kc.Delete(context.WithoutCancel(ctx), acct)
			return nil, "", err
		}
		return key, acct, nil
	}

	if account != "" {
		key, err := readEntry(account)
		switch {
		case err == nil:
			// Finish a move that stopped after naming the entry but
			// before removing the file.
			if fk, err := readKeyFile(keyPath); err == nil && string(fk) == string(key) {
				os.Remove(keyPath)
			}
			return key, account, nil
		case !errors.Is(err, ErrNotFound):
			return nil, "", err
		}
	}

	// No entry of this folder's yet. A key file means the store was
	// created without a keychain: move the key into the keychain, which
	// now exists, so it no longer sits in plain next to the data.
	key, err := readKeyFile(keyPath)
	switch {
	case err == nil:
		key, acct, err := moveIn(key, keyPath)
		if err != nil {
			return nil, "", err
		}
		if err := os.Remove(keyPath); err != nil {
			log.Warn("key moved into the keychain, but the key file remains", "path", keyPath, "err", err)
		}
		log.Info("moved the secrets key into the keychain")
		return key, acct, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, "", err
	}

	// A folder from before each had its own entry: its key is in the
	// shared one, which stays for the other folders that use it.
	if account == "" && data != nil && data.KeyIn == "keychain" {
		key, err := readEntry(fileKeyAccount)
		switch {
		case err == nil && (!hasValues || keyID(key) == data.KeyID):
			key, acct, err := moveIn(key, "the shared keychain entry")
			if err != nil {
				return nil, "", err
			}
			log.Info("the secrets key has a keychain entry of this folder's own now", "account", acct)
			return key, acct, nil
		case err != nil && !errors.Is(err, ErrNotFound):
			return nil, "", err
		}
	}

	if hasValues {
		return nil, "", fmt.Errorf("%w: %s holds secrets, but its key is neither in the keychain nor in %s (was the keychain reset?); sign in to the accounts again after moving it aside (secrets.Reset)",
			ErrKeyUnavailable, filepath.Join(dir, FileName), keyPath)
	}
	key = newKey()
	if account == "" {
		account = newKeyAccount()
		d := &fileData{Version: fileVersion, KeyID: keyID(key), KeyIn: "keychain", KeyAccount: account, Values: map[string]string{}}
		if err := writeData(dir, d); err != nil {
			return nil, "", err
		}
	} else if data.KeyID != keyID(key) {
		data.KeyID = keyID(key)
		if err := writeData(dir, data); err != nil {
			return nil, "", err
		}
	}
	if err := kc.Set(ctx, account, encodeKey(key)); err != nil {
		return nil, "", fmt.Errorf("secrets: storing a new key in the keychain: %w", err)
	}
	return key, account, nil
}

// keyFromFile returns the key from secrets.key, creating it if the store
// is new.
func keyFromFile(keyPath string, data *fileData) ([]byte, error) {
	key, err := readKeyFile(keyPath)
	if err == nil {
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if data != nil && len(data.Values) > 0 {
		if data.KeyIn == "keychain" {
			return nil, fmt.Errorf("%w: the key to %s is kept in the system keychain, which is not reachable now (on Linux: is a Secret Service such as gnome-keyring running and unlocked, with DBUS_SESSION_BUS_ADDRESS set?)",
				ErrKeyUnavailable, filepath.Join(filepath.Dir(keyPath), FileName))
		}
		return nil, fmt.Errorf("%w: %s holds secrets but %s is missing; sign in to the accounts again after moving it aside (secrets.Reset)",
			ErrKeyUnavailable, filepath.Join(filepath.Dir(keyPath), FileName), keyPath)
	}
	key = newKey()
	// O_EXCL: never overwrite a key another process just wrote.
	f, err := os.OpenFile(keyPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("secrets: creating %s: %w", keyPath, err)
	}
	_, werr := f.WriteString(encodeKey(key) + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(keyPath)
		return nil, fmt.Errorf("secrets: writing %s: %w", keyPath, err)
	}
	return key, nil
}

func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("secrets: reading %s: %w", path, err)
	}
	key, err := decodeKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	}
	return key, nil
}

func newKey() []byte {
	key := make([]byte, 32)
	rand.Read(key) // crypto/rand.Read never fails (Go 1.24+)
	return key
}

func encodeKey(key []byte) string { return base64.StdEncoding.EncodeToString(key) }

func decodeKey(s string) ([]byte, error) {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("key is not base64: %w", err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("key is %d bytes, want 32", len(key))
	}
	return key, nil
}

func keyID(key []byte) string {
	h := sha256.Sum256(append([]byte("spirit secrets key id\x00"), key...))
	return hex.EncodeToString(h[:8])
}

// readData reads secrets.json; a missing file is (nil, nil).
func readData(path string) (*fileData, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("secrets: reading %s: %w", path, err)
	}
	var d fileData
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%w: %s is not valid JSON (%v); it was left as is", ErrCorrupt, path, err)
	}
	if d.Version != fileVersion {
		return nil, fmt.Errorf("%w: %s has format version %d, this Spirit reads %d", ErrCorrupt, path, d.Version, fileVersion)
	}
	if d.Values == nil {
		d.Values = map[string]string{}
	}
	return &d, nil
}

func (s *fileStore) path() string { return filepath.Join(s.dir, FileName) }

func (s *fileStore) load() (*fileData, error) {
	d, err := readData(s.path())
	if err != nil {
		return nil, err
	}
	if d == nil {
		return &fileData{Version: fileVersion, KeyID: s.keyID, KeyIn: s.keyIn, KeyAccount: s.keyAccount, Values: map[string]string{}}, nil
	}
	if len(d.Values) > 0 && d.KeyID != s.keyID {
		return nil, fmt.Errorf("%w: %s was rewritten with another key", ErrKeyUnavailable, s.path())
	}
	return d, nil
}

// save writes d as this store's.
func (s *fileStore) save(d *fileData) error {
	d.KeyID, d.KeyIn, d.KeyAccount = s.keyID, s.keyIn, s.keyAccount
	return writeData(s.dir, d)
}

// writeData writes d as dir's secrets.json atomically: a crash mid-write
// must never leave a truncated file, which would lose every secret at
// once.
func writeData(dir string, d *fileData) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	tmp, err := os.CreateTemp(dir, FileName+".tmp*")
	if err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("secrets: %w", err)
	}
	_, werr := tmp.Write(b)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("secrets: writing %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, FileName)); err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	return nil
}

func (s *fileStore) Backend() string { return s.backend }

func (s *fileStore) Get(ctx context.Context, key string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.load()
	if err != nil {
		return "", err
	}
	enc, ok := d.Values[key]
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return s.open(key, enc)
}

func (s *fileStore) Set(ctx context.Context, key, value string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.load()
	if err != nil {
		return err
	}
	d.Values[key] = s.seal(key, value)
	return s.save(d)
}

func (s *fileStore) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.load()
	if err != nil {
		return err
	}
	if _, ok := d.Values[key]; !ok {
		return nil
	}
	delete(d.Values, key)
	return s.save(d)
}

// seal encrypts value with the key's name as additional data, so a value
// copied under another name fails to decrypt instead of being handed out
// as, say, another account's password.
func (s *fileStore) seal(key, value string) string {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(value)+s.aead.Overhead())
	rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, []byte(value), []byte(key)))
}

func (s *fileStore) open(key, enc string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(b) < s.aead.NonceSize() {
		return "", fmt.Errorf("%w: the value of %q in %s is not readable", ErrCorrupt, key, s.path())
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, b[:n], b[n:], []byte(key))
	if err != nil {
		return "", fmt.Errorf("%w: the value of %q in %s does not decrypt (altered or damaged)", ErrCorrupt, key, s.path())
	}
	return string(plain), nil
}

// Reset moves a damaged or undecryptable secrets.json (and a key file)
// aside, to secrets.json.broken-<time>, so that Spirit can start over and
// the lawyer signs in again. Nothing is deleted. It returns the new path
// of secrets.json, or "" if there was none.
func Reset(dataDir string) (string, error) {
	suffix := ".broken-" + time.Now().Format("20060102-150405")
	var moved string
	for _, name := range []string{FileName, KeyFileName} {
		p := filepath.Join(dataDir, name)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.Rename(p, p+suffix); err != nil {
			return moved, fmt.Errorf("secrets: %w", err)
		}
		if name == FileName {
			moved = p + suffix
		}
	}
	return moved, nil
}

// Forgotten is what Forget removed.
type Forgotten struct {
	// Account is the keychain entry removed (service Service), "" if the
	// folder had none: its key was in secrets.key, or there were no
	// secrets.
	Account string
	// Shared is set when the folder's key was in the entry every folder
	// shared before each had its own (fileKeyAccount): that entry stays,
	// since another folder may still need it.
	Shared bool
}

// Forget removes from the OS keychain the entry holding dataDir's file
// key, if Spirit made one for this folder; "Delete all Spirit data" calls
// it before deleting secrets.json, which names the entry. An entry
// already gone is not an error. The error says which entry is left and
// where to remove it by hand.
func Forget(ctx context.Context, dataDir string) (Forgotten, error) {
	d, err := readData(filepath.Join(dataDir, FileName))
	if err != nil || d == nil || d.KeyIn != "keychain" {
		return Forgotten{}, nil // no entry this folder names
	}
	if d.KeyAccount == "" {
		return Forgotten{Shared: true}, nil
	}
	if err := sessionBusPresent(); err != nil {
		return Forgotten{}, forgetError(d.KeyAccount, err)
	}
	return forget(ctx, osKeychain{service: Service}, d)
}

// forget is Forget with the keychain given.
func forget(ctx context.Context, kc keychain, d *fileData) (Forgotten, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if err := kc.Delete(ctx, d.KeyAccount); err != nil {
		return Forgotten{}, forgetError(d.KeyAccount, err)
	}
	return Forgotten{Account: d.KeyAccount}, nil
}

func forgetError(account string, err error) error {
	return fmt.Errorf("the keychain entry Spirit made for this folder (service %q, account %q) was not removed: %w; remove it in your keychain app (Passwords and Keys, Keychain Access or Credential Manager)",
		Service, account, err)
}
