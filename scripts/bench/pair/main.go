// Command pair times two commands in turn, A B A B ..., as whole processes
// (from just before the fork to the reap, no shell in between), and prints
// the median of the per-pair ratios A/B with its spread. Pairing keeps the
// ratio honest on a busy machine: both sides of a pair see the same load.
// With no --vs it times A alone. Every run must exit with the expected
// status (-code for A, -bcode for B), or pair fails: a command that crashed
// early must not look fast.
//
//	pair [-n 10] [-warmup 1] [-prep 'SHELL CMD'] [-out FILE] [-code 0] [-bcode 0] -- A [ARG...] [--vs B [ARG...]]
//
// It prints one line of key=value pairs for scripts/bench.sh: times in ms,
// ratios as A/B, rss as the largest peak RSS (KiB) of A's process and the
// children it waited for, cpu as user+system time.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

type sample struct {
	wall, cpu time.Duration
	rssKiB    int64
}

type command struct {
	path string
	argv []string
	code int
	out  string
}

func main() {
	n := flag.Int("n", 10, "counted runs of each command")
	warmup := flag.Int("warmup", 1, "uncounted runs of each command first")
	prep := flag.String("prep", "", "a sh -c command run, untimed, before every run of A (e.g. copy a fresh ledger)")
	out := flag.String("out", os.DevNull, "append A's stdout and stderr to this file")
	code := flag.Int("code", 0, "the exit status every run of A must have")
	bcode := flag.Int("bcode", 0, "the exit status every run of B must have")
	flag.Parse()
	a, b, err := commands(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "pair:", err)
		os.Exit(2)
	}
	a.code, a.out = *code, *out
	if b != nil {
		b.code = *bcode
	}
	if err := measure(a, b, *n, *warmup, *prep); err != nil {
		fmt.Fprintln(os.Stderr, "pair:", err)
		os.Exit(1)
	}
}

// commands splits ARGS at "--vs" and resolves both programs up front, so
// that no PATH search is timed.
func commands(args []string) (*command, *command, error) {
	i := slices.Index(args, "--vs")
	aArgs, bArgs := args, []string(nil)
	if i >= 0 {
		aArgs, bArgs = args[:i], args[i+1:]
		if len(bArgs) == 0 {
			return nil, nil, fmt.Errorf("--vs needs a command")
		}
	}
	if len(aArgs) == 0 {
		return nil, nil, fmt.Errorf("usage: pair [flags] -- A [ARG...] [--vs B [ARG...]]")
	}
	a, err := resolve(aArgs)
	if err != nil || bArgs == nil {
		return a, nil, err
	}
	b, err := resolve(bArgs)
	return a, b, err
}

func resolve(argv []string) (*command, error) {
	p, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	return &command{path: p, argv: argv, out: os.DevNull}, nil
}

func measure(a, b *command, n, warmup int, prep string) error {
	var as, bs []sample
	for i := 0; i < warmup+n; i++ {
		if prep != "" {
			if o, err := exec.Command("sh", "-c", prep).CombinedOutput(); err != nil {
				return fmt.Errorf("-prep: %v: %s", err, o)
			}
		}
		s, err := once(a)
		if err != nil {
			return err
		}
		if i >= warmup {
			as = append(as, s)
		}
		if b == nil {
			continue
		}
		if s, err = once(b); err != nil {
			return err
		}
		if i >= warmup {
			bs = append(bs, s)
		}
	}
	report(as, bs)
	return nil
}

// once runs c and times it from just before the fork to just after the
// reap. Its stdin is /dev/null; its output goes to c.out.
func once(c *command) (sample, error) {
	in, err := os.Open(os.DevNull)
	if err != nil {
		return sample{}, err
	}
	defer in.Close()
	out, err := os.OpenFile(c.out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return sample{}, err
	}
	defer out.Close()
	attr := &os.ProcAttr{Files: []*os.File{in, out, out}}
	start := time.Now()
	p, err := os.StartProcess(c.path, c.argv, attr)
	if err != nil {
		return sample{}, err
	}
	st, err := p.Wait()
	wall := time.Since(start)
	if err != nil {
		return sample{}, err
	}
	if st.ExitCode() != c.code {
		return sample{}, fmt.Errorf("%q: %v, want exit status %d (output in %s)", c.argv, st, c.code, c.out)
	}
	ru := st.SysUsage().(*syscall.Rusage)
	return sample{wall: wall, cpu: st.UserTime() + st.SystemTime(), rssKiB: ru.Maxrss}, nil
}

func report(as, bs []sample) {
	wall := func(s sample) float64 { return ms(s.wall) }
	cpu := func(s sample) float64 { return ms(s.cpu) }
	fmt.Printf("n=%d a_ms=%.3f a_p25=%.3f a_p75=%.3f a_min=%.3f a_cpu_ms=%.3f a_rss_kib=%d",
		len(as), median(each(as, wall)), quantile(each(as, wall), .25), quantile(each(as, wall), .75),
		slices.Min(each(as, wall)), median(each(as, cpu)), maxRSS(as))
	if bs != nil {
		r := make([]float64, len(as))
		rc := make([]float64, len(as))
		for i := range as {
			r[i] = wall(as[i]) / wall(bs[i])
			rc[i] = cpu(as[i]) / max(cpu(bs[i]), 0.001)
		}
		fmt.Printf(" b_ms=%.3f b_min=%.3f b_cpu_ms=%.3f ratio=%.2f ratio_p25=%.2f ratio_p75=%.2f ratio_min=%.2f ratio_max=%.2f cpu_ratio=%.2f",
			median(each(bs, wall)), slices.Min(each(bs, wall)), median(each(bs, cpu)),
			median(r), quantile(r, .25), quantile(r, .75), slices.Min(r), slices.Max(r), median(rc))
	}
	fmt.Println()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func each(s []sample, f func(sample) float64) []float64 {
	v := make([]float64, len(s))
	for i := range s {
		v[i] = f(s[i])
	}
	return v
}

func maxRSS(s []sample) int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.rssKiB)
	}
	return m
}

func median(v []float64) float64 { return quantile(v, .5) }

// quantile interpolates linearly between the closest ranks.
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(pos)
	if lo+1 >= len(s) {
		return s[lo]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}
