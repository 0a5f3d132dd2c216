package docstest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type k8sContainer struct {
	Name            string   `yaml:"name"`
	Command         []string `yaml:"command"`
	SecurityContext *struct {
		RunAsUser *int `yaml:"runAsUser"`
	} `yaml:"securityContext"`
	Env []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type k8sPodSpec struct {
	SecurityContext struct {
		RunAsUser *int `yaml:"runAsUser"`
		FSGroup   *int `yaml:"fsGroup"`
	} `yaml:"securityContext"`
	InitContainers []k8sContainer `yaml:"initContainers"`
	Containers     []k8sContainer `yaml:"containers"`
	Volumes        []struct {
		Name   string         `yaml:"name"`
		Secret map[string]any `yaml:"secret"`
	} `yaml:"volumes"`
}

// imageUser is the uid the recipe's Dockerfile runs as (USER nonroot).
const imageUser = 65532

// TestRecipeLedgerFileReadable: catchup reads CATCHUP_DB_FILE only if it is
// owned by its uid (or root) with no group or other bits, and it must be
// able to read it. A Secret volume gives root-owned files (0400: unreadable
// by the image's nonroot user) or, with fsGroup, group-readable ones (0440:
// refused). So the recipe's pod must not read the Secret's file directly
// unless it runs as root: an init container copies it, owned by the uid
// catchup runs as, mode 0400.
func TestRecipeLedgerFileReadable(t *testing.T) {
	b, err := os.ReadFile("../docs/recipes/deployment-postgres.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var pod *k8sPodSpec
	for {
		var doc struct {
			Kind string `yaml:"kind"`
			Spec struct {
				Template struct {
					Spec k8sPodSpec `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if doc.Kind == "Deployment" {
			pod = &doc.Spec.Template.Spec
		}
	}
	if pod == nil || len(pod.Containers) != 1 {
		t.Fatal("want a Deployment with one container")
	}
	c := pod.Containers[0]
	uid := imageUser
	if pod.SecurityContext.RunAsUser != nil {
		uid = *pod.SecurityContext.RunAsUser
	}
	if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
		uid = *c.SecurityContext.RunAsUser
	}
	var file string
	for _, e := range c.Env {
		if e.Name == "CATCHUP_DB_FILE" {
			file = e.Value
		}
	}
	if file == "" {
		t.Fatal("the container sets no CATCHUP_DB_FILE")
	}
	var volume string
	for _, m := range c.VolumeMounts {
		if strings.HasPrefix(file, strings.TrimSuffix(m.MountPath, "/")+"/") {
			volume = m.Name
		}
	}
	if volume == "" {
		t.Fatalf("CATCHUP_DB_FILE %s is on no volume of the container", file)
	}
	for _, v := range pod.Volumes {
		if v.Name != volume || v.Secret == nil {
			continue
		}
		if uid != 0 {
			t.Errorf("CATCHUP_DB_FILE %s is a Secret's file, owned by root: uid %d cannot read it at mode 0400 (and with fsGroup it is 0440, which catchup refuses)", file, uid)
		}
		return
	}
	if pod.SecurityContext.FSGroup != nil {
		t.Errorf("fsGroup %d: kubelet would give the Secret's files group read (0440), refused by catchup", *pod.SecurityContext.FSGroup)
	}
	// The file is copied by an init container: owned by uid, mode 0400.
	for _, ic := range pod.InitContainers {
		cmd := strings.Join(ic.Command, " ")
		if strings.Contains(cmd, "install") && strings.Contains(cmd, "-m 0400") &&
			strings.Contains(cmd, "-o "+strconv.Itoa(uid)) && strings.Contains(cmd, file) {
			return
		}
	}
	t.Errorf("no init container installs %s owned by uid %d, mode 0400", file, uid)
}
