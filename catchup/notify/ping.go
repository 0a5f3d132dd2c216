package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Pinger speaks the healthchecks.io ping protocol, which Healthchecks
// (hosted or self-hosted), Uptime Kuma push monitors and Cronitor accept:
// URL/start before the job, URL on success, URL/<exit code> on failure, with
// a per-run rid so that the monitor can pair start and end and measure the
// duration. See https://healthchecks.io/docs/http_api/.
//
// A monitor that is down never delays or fails the job: the start ping is
// sent in the background, and every ping gets a short timeout and a few
// retries, bounded as a whole.
type Pinger struct {
	url    string
	notice func(format string, args ...any) // says why a ping failed
	rid    string
}

const (
	pingBodyMax = 10 << 10        // how much of the output tail goes in the end ping's body
	pingTimeout = 3 * time.Second // per attempt
	pingRetries = 2               // extra attempts after a failure
)

// NewPinger returns a pinger for one run, with a fresh rid; notice says
// why a ping failed (never the URL's secret parts).
func NewPinger(u string, notice func(format string, args ...any)) *Pinger {
	var b [16]byte
	rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80 // a version 4 UUID
	rid := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	if notice == nil {
		notice = func(string, ...any) {}
	}
	return &Pinger{url: strings.TrimRight(u, "/"), notice: notice, rid: rid}
}

// Start signals the job's start in the background; wait on the returned
// channel before sending the end ping so that they arrive in order.
func (p *Pinger) Start(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.send(ctx, "/start", nil)
	}()
	return done
}

// End reports the outcome: success, or the exit code (timeouts and signals
// are failures), with the tail of the output as the body.
func (p *Pinger) End(ctx context.Context, exitCode int, body []byte) {
	suffix := ""
	if exitCode != 0 {
		suffix = "/" + strconv.Itoa(min(exitCode, 255))
	}
	if len(body) > pingBodyMax {
		body = body[len(body)-pingBodyMax:]
	}
	p.send(ctx, suffix, body)
}

func (p *Pinger) send(ctx context.Context, suffix string, body []byte) {
	client := &http.Client{Timeout: pingTimeout}
	u, err := url.Parse(p.url)
	if err != nil {
		p.notice("ping: the URL does not parse")
		return
	}
	// The suffix goes on the path: a URL may carry a query of its own.
	u.Path = strings.TrimRight(u.Path, "/") + suffix
	u.RawPath = ""
	q := u.Query()
	q.Set("rid", p.rid)
	u.RawQuery = q.Encode()
	var last error
	for attempt := 0; attempt <= pingRetries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
		if err != nil {
			p.notice("ping %s: cannot build the request", redactURL(u))
			return
		}
		req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		resp, err := client.Do(req)
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error quotes the whole URL, secret and all
		}
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode < 500 {
				if resp.StatusCode >= 300 {
					p.notice("ping %s: HTTP %d", redactURL(u), resp.StatusCode)
				}
				return
			}
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		last = err
	}
	p.notice("ping %s failed: %v (the job is not affected)", redactURL(u), last)
}

// redactURL drops the query and credentials: ping URLs embed secrets (the
// check's UUID or key is the credential), so only scheme and host are shown.
func redactURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host + "/..."
}
