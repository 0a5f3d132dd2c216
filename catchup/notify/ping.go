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

	"github.com/catchup/catchup/internal/jobsup"
)

// Pinger speaks the healthchecks.io ping protocol, which Healthchecks
// (hosted or self-hosted), Uptime Kuma push monitors and Cronitor accept:
// URL/start before the job, URL on success, URL/<exit code> on failure, with
// a per-run rid so that the monitor can pair start and end and measure the
// duration. See https://healthchecks.io/docs/http_api/.
//
// A monitor that is down never delays or fails the job: the start ping is
// sent in the background and makes no new attempt once the job has ended,
// and after the job the pings take at most afterJob in all (the start
// ping's attempt in flight, then the end ping's attempts). Each ping that
// failed is one notice, ending "(the job is not affected)".
type Pinger struct {
	url    string
	notice func(format string, args ...any) // says why a ping failed
	rid    string

	attemptTimeout time.Duration // per attempt
	afterJob       time.Duration // all that the pings may take once the job has ended

	started  chan struct{} // closed when the start ping is over (closed already without one)
	jobEnded chan struct{} // closed by End: the start ping makes no new attempt
}

const (
	pingBodyMax  = 10 << 10         // how much of the output tail goes in the end ping's body
	pingTimeout  = 3 * time.Second  // per attempt
	pingRetries  = 2                // extra attempts after a failure that may pass (no answer, 5xx)
	pingAfterJob = 10 * time.Second // the pings' bound once the job has ended
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
	started := make(chan struct{})
	close(started)
	return &Pinger{url: strings.TrimRight(u, "/"), notice: notice, rid: rid,
		attemptTimeout: pingTimeout, afterJob: pingAfterJob, started: started, jobEnded: make(chan struct{})}
}

// Start signals the job's start in the background. Call it at most once,
// before End.
func (p *Pinger) Start(ctx context.Context) {
	done := make(chan struct{})
	p.started = done
	go func() {
		defer close(done)
		p.send(ctx, "start", "/start", nil, p.jobEnded)
	}()
}

// End reports the outcome: success, or the exit code (timeouts and signals
// are failures), with the tail of the output as the body. It comes after
// the start ping, so that the monitor sees them in order, and returns
// within afterJob, or as soon as ctx ends (the notice then says the ping
// was cut short).
//
// A stop of catchup waits for it as for a job (jobsup): it is bounded, and
// a second signal does not cut it.
func (p *Pinger) End(ctx context.Context, exitCode int, body []byte) {
	defer jobsup.Started()()
	close(p.jobEnded)
	suffix := ""
	if exitCode != 0 {
		suffix = "/" + strconv.Itoa(min(exitCode, 255))
	}
	if len(body) > pingBodyMax {
		body = body[len(body)-pingBodyMax:]
	}
	ctx, cancel := context.WithTimeout(ctx, p.afterJob)
	defer cancel()
	select {
	case <-p.started:
	case <-ctx.Done():
	}
	p.send(ctx, "end", suffix, body, nil)
}

// httpStatus is a monitor's answer that is not a success.
type httpStatus int

func (s httpStatus) Error() string { return "HTTP " + strconv.Itoa(int(s)) }

// errNoAnswer is an attempt that got no answer within attemptTimeout.
var errNoAnswer = errors.New("no answer")

// send makes the ping's attempts until one passes, one fails for good (an
// answer below 500), the retries are spent, ctx ends or stop is closed;
// then it says why it failed, in one notice.
func (p *Pinger) send(ctx context.Context, which, suffix string, body []byte, stop <-chan struct{}) {
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
attempts:
	for attempt := 0; attempt <= pingRetries && ctx.Err() == nil; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				break attempts
			case <-stop:
				break attempts
			case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
			}
		}
		select {
		case <-stop:
			if last != nil {
				break attempts
			}
		default:
		}
		if last = p.attempt(ctx, u, body); last == nil {
			return
		}
		var s httpStatus
		if errors.As(last, &s) && s < 500 {
			break
		}
	}
	p.notice("%s ping %s failed: %s (the job is not affected)", which, redactURL(u), p.why(ctx, last))
}

// attempt makes one request, within attemptTimeout.
func (p *Pinger) attempt(ctx context.Context, u *url.URL, body []byte) error {
	actx, cancel := context.WithTimeout(ctx, p.attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return errors.New("cannot build the request")
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	resp, err := pingClient.Do(req)
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			return errNoAnswer
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error quotes the whole URL, secret and all
		}
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return httpStatus(resp.StatusCode)
	}
	return nil
}

// pingClient follows no redirect: an answer of 300 or more is a failure
// at once, as documented. Followed, a 307 or 308 would send the job's
// output tail again to wherever Location points (another host, maybe), and
// a 301, 302 or 303 would become a GET whose 200 passed for the ping.
var pingClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// why says in words why a ping failed: ctx's end first (a stop, or the
// pings' bound after the job), else the last attempt's error.
func (p *Pinger) why(ctx context.Context, last error) string {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return "cut short, catchup was told to stop"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("gave up %s after the job ended", p.afterJob)
	case errors.Is(last, errNoAnswer):
		return fmt.Sprintf("no answer within %s", p.attemptTimeout)
	case last == nil:
		return "not sent"
	}
	return last.Error()
}

// redactURL drops the query and credentials: ping URLs embed secrets (the
// check's UUID or key is the credential), so only scheme and host are shown.
func redactURL(u *url.URL) string {
	return u.Scheme + "://" + u.Host + "/..."
}
