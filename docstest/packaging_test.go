package docstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestPackageScripts: the .deb and .rpm carry maintainer scripts that, on
// removal (deb prerm "remove", rpm %preun 0) and never on upgrade, disable
// the units, and reload systemd after install, upgrade and removal. They are
// run here with a fake systemctl that logs its arguments.
func TestPackageScripts(t *testing.T) {
	b, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		NFPMs []struct {
			Scripts map[string]string `yaml:"scripts"`
		} `yaml:"nfpms"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.NFPMs) != 1 {
		t.Fatalf("want one nfpms entry, got %d", len(cfg.NFPMs))
	}
	scripts := cfg.NFPMs[0].Scripts
	for _, k := range []string{"postinstall", "preremove", "postremove"} {
		if scripts[k] == "" {
			t.Errorf(".goreleaser.yaml: nfpms has no scripts.%s", k)
		}
	}
	if t.Failed() {
		return
	}

	_, statErr := os.Stat("/run/systemd/system")
	running := statErr == nil
	reload, disable := "", ""
	if running {
		reload = "daemon-reload\n"
		disable = "disable --now catchup-scan.timer catchup-scan.service\n"
	} else {
		disable = "--no-reload disable catchup-scan.timer catchup-scan.service\n"
	}
	tests := map[string]struct {
		script, arg, want string
	}{
		"deb prerm remove":       {"preremove", "remove", disable},
		"deb prerm upgrade":      {"preremove", "upgrade", ""},
		"deb prerm deconfigure":  {"preremove", "deconfigure", ""},
		"rpm preun erase":        {"preremove", "0", disable},
		"rpm preun upgrade":      {"preremove", "1", ""},
		"deb postinst configure": {"postinstall", "configure", reload},
		"rpm post install":       {"postinstall", "1", reload},
		"rpm post upgrade":       {"postinstall", "2", reload},
		"deb postrm remove":      {"postremove", "remove", reload},
		"deb postrm purge":       {"postremove", "purge", reload},
		"deb postrm upgrade":     {"postremove", "upgrade", reload},
		"rpm postun erase":       {"postremove", "0", reload},
		"rpm postun upgrade":     {"postremove", "1", reload},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "log")
			fake := "#!/bin/sh\necho \"$*\" >>" + log + "\nexit 1\n" // a failing systemctl must not fail the package
			if err := os.WriteFile(filepath.Join(dir, "systemctl"), []byte(fake), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sh", "-eu", "../"+scripts[tt.script], tt.arg)
			cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s %s: %v\n%s", tt.script, tt.arg, err, out)
			}
			got, _ := os.ReadFile(log)
			if string(got) != tt.want {
				t.Errorf("%s %s: systemctl called with %q, want %q", tt.script, tt.arg, got, tt.want)
			}
		})
	}
	for _, s := range scripts {
		if out, err := exec.Command("sh", "-n", "../"+s).CombinedOutput(); err != nil {
			t.Errorf("sh -n %s: %v\n%s", s, err, out)
		}
		if fi, err := os.Stat("../" + s); err != nil || fi.Mode().Perm()&0o111 == 0 || !strings.HasSuffix(s, ".sh") {
			t.Errorf("%s: want an executable .sh file (%v)", s, err)
		}
	}
}
