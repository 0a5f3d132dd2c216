package docstest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/catchup/catchup/catchup/crontab"
)

// TestRecipeFiles parses the files docs/recipes.md points to: the
// Kubernetes manifests as YAML of the expected kinds, the crontab as the
// daemon reads it, and the Dockerfile's structure (a multi-stage, static
// build whose entrypoint is catchup daemon).
func TestRecipeFiles(t *testing.T) {
	for name, kinds := range map[string][]string{
		"deployment-sqlite.yaml":   {"PersistentVolumeClaim", "Deployment"},
		"deployment-postgres.yaml": {"Secret", "Deployment"},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile("../docs/recipes/" + name)
			if err != nil {
				t.Fatal(err)
			}
			dec := yaml.NewDecoder(bytes.NewReader(b))
			var got []string
			for {
				var doc struct {
					Kind string `yaml:"kind"`
					Spec struct {
						Template struct {
							Spec struct {
								Grace      int `yaml:"terminationGracePeriodSeconds"`
								Containers []struct {
									Image string `yaml:"image"`
								} `yaml:"containers"`
							} `yaml:"spec"`
						} `yaml:"template"`
					} `yaml:"spec"`
				}
				err := dec.Decode(&doc)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got = append(got, doc.Kind)
				if doc.Kind == "Deployment" {
					if g := doc.Spec.Template.Spec.Grace; g <= 30 {
						t.Errorf("terminationGracePeriodSeconds %d: must exceed the daemon's --grace of 30s", g)
					}
					if len(doc.Spec.Template.Spec.Containers) != 1 {
						t.Errorf("want one container")
					}
				}
			}
			if len(got) != len(kinds) || got[0] != kinds[0] || got[1] != kinds[1] {
				t.Errorf("kinds %v, want %v", got, kinds)
			}
		})
	}
	t.Run("crontab", func(t *testing.T) {
		b, err := os.ReadFile("../docs/recipes/crontab")
		if err != nil {
			t.Fatal(err)
		}
		jobs, errs := crontab.ParseJobs(bytes.NewReader(b), "crontab")
		if len(errs) > 0 || len(jobs) != 2 || jobs[0].Task != "nightly-report" || jobs[1].Task != "sync" ||
			jobs[1].Run != "/app/sync.sh" || jobs[0].TZ != "Europe/Paris" {
			t.Errorf("jobs %+v, errors %v", jobs, errs)
		}
	})
	t.Run("Dockerfile", func(t *testing.T) {
		b, err := os.ReadFile("../docs/recipes/Dockerfile")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`(?m)^FROM \S+ AS build$`, `CGO_ENABLED=0 go build`,
			`COPY --from=build `, `(?m)^ENTRYPOINT \[("/sbin/tini", "--", )?"/usr/local/bin/catchup", "daemon", "--crontab", `} {
			if !regexp.MustCompile(want).Match(b) {
				t.Errorf("Dockerfile: no match for %s", want)
			}
		}
		// Jobs run as /bin/sh -c LINE: the last stage must have a shell.
		froms := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllSubmatch(b, -1)
		if len(froms) < 2 {
			t.Fatalf("Dockerfile: %d stages, want a build stage and a runtime one", len(froms))
		}
		if last := string(froms[len(froms)-1][1]); regexp.MustCompile(`^scratch$|distroless/static`).MatchString(last) {
			t.Errorf("Dockerfile: runtime base %s has no /bin/sh to run the jobs with", last)
		}
		// The crontab names a zone (CRON_TZ): catchup reads zones from the
		// system, and an alpine image has none without tzdata (the daemon
		// would refuse the crontab at every start: a crash loop).
		if last := string(froms[len(froms)-1][1]); strings.HasPrefix(last, "alpine") &&
			!regexp.MustCompile(`(?m)^RUN apk add .*\btzdata\b`).Match(b) {
			t.Errorf("Dockerfile: an alpine runtime stage without apk add tzdata: the crontab's CRON_TZ is an unknown zone there")
		}
	})
}
