package api

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Timeouts for the HTTP server. Requests come from local, well-behaved
// clients, so these only bound the damage a stuck or hostile one can do.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	idleTimeout       = 60 * time.Second
	// requestTimeout bounds the backend call; writeTimeout leaves room to
	// send the resulting error after it expires.
	requestTimeout = 90 * time.Second
	writeTimeout   = requestTimeout + 10*time.Second
	maxHeaderBytes = 16 << 10
)

// Option configures a Server.
type Option func(*Server)

// WithLogger sets where request failures and recovered panics are logged.
// The default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) {
		if l != nil {
			s.log = l
		}
	}
}

// ShutdownGrace bounds how long Run waits for requests in flight when its
// context ends; past that they are cut off.
const ShutdownGrace = 1500 * time.Millisecond

// Server is the local control API. Create it with New, Start it once (it
// listens and publishes api.json), Run it (it serves until its context
// ends), and it shuts down once; it cannot be restarted.
type Server struct {
	backend Backend
	log     *slog.Logger
	stopped chan struct{} // closed when Shutdown has finished

	mu       sync.Mutex
	started  bool
	serving  bool          // Run has begun serving
	srv      *http.Server  // nil before Start and after Shutdown
	ln       net.Listener  // from Start
	served   chan struct{} // closed when Run's Serve has returned
	infoPath string
	token    string
	stopOnce sync.Once
}

// New returns a Server that serves b. It does not listen until Start.
func New(b Backend, opts ...Option) *Server {
	s := &Server{backend: b, log: slog.Default(), stopped: make(chan struct{}), served: make(chan struct{})}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// Start listens on a free port of 127.0.0.1 and writes dataDir/api.json
// with the address and a fresh token; Run serves. It returns the address
// ("127.0.0.1:PORT"). ctx bounds only the start-up. Connections made
// between Start and Run wait in the kernel's queue.
func (s *Server) Start(ctx context.Context, dataDir string) (addr string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return "", errors.New("api: server already started")
	}
	if s.backend == nil {
		return "", errors.New("api: nil Backend")
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("api: start: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", fmt.Errorf("api: create data dir: %w", err)
	}
	token := newToken()

	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("api: listen: %w", err)
	}
	addr = ln.Addr().String()

	// Write api.json before serving: clients that find it can connect at
	// once, as the kernel already queues their connections on ln.
	infoPath := filepath.Join(dataDir, InfoFile)
	if err := writeInfo(infoPath, Info{Addr: addr, Token: token}); err != nil {
		ln.Close()
		return "", err
	}

	srv := &http.Server{
		Handler:           newHandler(s.backend, s.log, addr, token),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.started, s.srv, s.ln = true, srv, ln
	s.infoPath, s.token = infoPath, token
	s.log.Info("api: listening", "addr", addr, "info", infoPath)
	return addr, nil
}

// Run serves until ctx ends, then shuts down gracefully (see Shutdown),
// waiting at most ShutdownGrace for requests in flight. A Shutdown from
// elsewhere ends it too. It returns nil after a clean stop.
func (s *Server) Run(ctx context.Context) error {
	s.mu.Lock()
	srv, ln, started := s.srv, s.ln, s.started
	if srv == nil {
		s.mu.Unlock()
		if started {
			return nil // already shut down
		}
		return errors.New("api: Run before Start")
	}
	s.serving = true
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		// ctx is done: shut down with a fresh one.
		sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
		defer cancel()
		if err := s.Shutdown(sctx); err != nil {
			s.log.Warn("api: shutdown", "err", err)
		}
	})
	defer stop()
	err := srv.Serve(ln)
	ln.Close() // Serve leaves it open when Shutdown came first
	s.stopOnce.Do(func() { close(s.served) })
	if !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("api: serve: %w", err)
	}
	<-s.stopped // requests in flight have finished, or were cut off
	return nil
}

// Shutdown removes api.json if it still holds this server's token (another
// instance may have replaced it since), then stops the server gracefully,
// waiting for in-flight requests until ctx is done; past that they are cut
// off. Calling Shutdown on a server that is not running does nothing.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv, ln, serving, infoPath, token := s.srv, s.ln, s.serving, s.infoPath, s.token
	s.srv = nil
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	defer close(s.stopped)

	// Remove the file first so no new client picks up a dying address.
	var errs []error
	if err := removeInfoIfOurs(infoPath, token); err != nil {
		errs = append(errs, err)
	}
	if err := srv.Shutdown(ctx); err != nil {
		srv.Close()
		errs = append(errs, fmt.Errorf("api: shutdown: %w", err))
	}
	if serving {
		<-s.served
	} else {
		ln.Close() // never served: the server does not know the listener
	}
	return errors.Join(errs...)
}

// newToken returns 32 random bytes, hex-encoded.
func newToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails; crashes the program if the OS has no randomness
	return hex.EncodeToString(b)
}

// writeInfo writes info to path atomically (temp file, fsync, rename) so a
// reader never sees a partial file, and with mode 0600 from the start so the
// token is never readable by others, not even briefly.
func writeInfo(path string, info Info) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("api: encode %s: %w", InfoFile, err)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+InfoFile+".*.tmp") // created 0600
	if err != nil {
		return fmt.Errorf("api: write %s: %w", InfoFile, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("api: write %s: %w", InfoFile, err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("api: write %s: %w", InfoFile, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("api: write %s: %w", InfoFile, err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable. It is best effort: some platforms
// (Windows) cannot open or sync directories, and the file is already complete.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// removeInfoIfOurs removes path unless it is gone or holds another token.
func removeInfoIfOurs(path, token string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("api: read %s: %w", InfoFile, err)
	}
	var info Info
	if err := json.Unmarshal(data, &info); err != nil {
		return nil // not something we wrote; leave it alone
	}
	if subtle.ConstantTimeCompare([]byte(info.Token), []byte(token)) != 1 {
		return nil // another instance has taken over
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("api: remove %s: %w", InfoFile, err)
	}
	return nil
}
