package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
)

func TestTaskRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]store.Task{
			"argv task": {
				Name:     "backup",
				Schedule: "0 3 * * *",
				TZ:       "Europe/Paris",
				Replay:   "latest",
				Argv:     []string{"/usr/bin/rsync", "-a", "/home/my files/", `dest "quoted"`, "it's", `back\slash`, "", "ünïcødé"},
				Dir:      "/srv/with space",
				Source:   "run",
				Retries:  3, RetryDelay: 90 * time.Second,
				RegisteredAt: t0, UpdatedAt: t0.Add(time.Hour + 123*time.Millisecond),
			},
			"crontab shell task": {
				Name:     "crontab-line-7",
				Schedule: "*/5 * * * *",
				Replay:   "none",
				Argv:     []string{},
				Shell:    `cd /tmp && echo "a b" | tee 'x y' >/dev/null 2>&1`,
				Source:   "crontab:/etc/crontab:7",
				Retries:  0, RetryDelay: 1500 * time.Millisecond,
				RegisteredAt: t0, UpdatedAt: t0,
			},
			"no schedule": {
				Name: "manual only", Replay: "all", Argv: []string{"make", "-C", "/src"},
				RetryDelay:   0,
				RegisteredAt: t0, UpdatedAt: t0,
			},
		}
		s := be.fresh(t)
		for name, want := range tests {
			t.Run(name, func(t *testing.T) {
				if err := s.UpsertTask(t.Context(), want); err != nil {
					t.Fatalf("UpsertTask: %v", err)
				}
				got, err := s.Task(t.Context(), want.Name)
				if err != nil {
					t.Fatalf("Task: %v", err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Task(%q)\n got %#v\nwant %#v", want.Name, got, want)
				}
			})
		}
	})
}

func TestTaskDefaults(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		if err := s.UpsertTask(t.Context(), store.Task{Name: "bare", RegisteredAt: t0, UpdatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Task(t.Context(), "bare")
		if err != nil {
			t.Fatal(err)
		}
		if got.Replay != "all" {
			t.Errorf("Replay = %q, want the default %q", got.Replay, "all")
		}
		if len(got.Argv) != 0 {
			t.Errorf("Argv = %q, want none", got.Argv)
		}
	})
}

func TestTaskUpdate(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		first := store.Task{Name: "backup", Schedule: "0 3 * * *", Argv: []string{"old"}, Retries: 2,
			RetryDelay: time.Minute, RegisteredAt: t0, UpdatedAt: t0}
		second := store.Task{Name: "backup", Schedule: "0 4 * * *", Argv: []string{"new", "args"}, Replay: "none",
			Retries: 0, RetryDelay: 5 * time.Second, RegisteredAt: t0.Add(time.Hour), UpdatedAt: t0.Add(time.Hour)}
		for _, task := range []store.Task{first, second} {
			if err := s.UpsertTask(t.Context(), task); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Task(t.Context(), "backup")
		if err != nil {
			t.Fatal(err)
		}
		want := second
		want.RegisteredAt = t0
		if !reflect.DeepEqual(got, want) {
			t.Errorf("after update\n got %#v\nwant %#v", got, want)
		}
	})
}

func TestTaskRegisteredAtOnlyMovesBack(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		tests := map[string]struct {
			upserts []time.Time
			want    time.Time
		}{
			"later upsert keeps the first":  {upserts: []time.Time{t0, t0.Add(time.Hour)}, want: t0},
			"earlier upsert moves it back":  {upserts: []time.Time{t0, t0.Add(-48 * time.Hour)}, want: t0.Add(-48 * time.Hour)},
			"back then forth":               {upserts: []time.Time{t0, t0.Add(-time.Minute), t0.Add(time.Minute)}, want: t0.Add(-time.Minute)},
			"same time":                     {upserts: []time.Time{t0, t0}, want: t0},
			"millisecond precision is kept": {upserts: []time.Time{t0.Add(7 * time.Millisecond), t0.Add(8 * time.Millisecond)}, want: t0.Add(7 * time.Millisecond)},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				s := be.fresh(t)
				for _, at := range tc.upserts {
					if err := s.UpsertTask(t.Context(), store.Task{Name: "backup", RegisteredAt: at, UpdatedAt: at}); err != nil {
						t.Fatal(err)
					}
				}
				got, err := s.Task(t.Context(), "backup")
				if err != nil {
					t.Fatal(err)
				}
				if !got.RegisteredAt.Equal(tc.want) {
					t.Errorf("RegisteredAt = %v, want %v", got.RegisteredAt, tc.want)
				}
				if last := tc.upserts[len(tc.upserts)-1]; !got.UpdatedAt.Equal(last) {
					t.Errorf("UpdatedAt = %v, want the last upsert's %v", got.UpdatedAt, last)
				}
			})
		}
	})
}
