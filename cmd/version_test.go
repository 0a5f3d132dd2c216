package cmd

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "35bf109cf3989c5b4e85ebfac666d27f64a27e5d"}
	tests := map[string]struct {
		info debug.BuildInfo
		want string
	}{
		"module version": {debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		"pseudo-version of a checkout": {
			debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261130053347-35bf109cf398+dirty"}, Settings: []debug.BuildSetting{rev}},
			"v0.0.0-20261130053347-35bf109cf398+dirty",
		},
		"revision only": {
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{rev}},
			"dev-35bf109cf398",
		},
		"modified tree": {
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "true"}}},
			"dev-35bf109cf398-dirty",
		},
		"nothing known": {debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := versionFromBuildInfo(&tt.info); got != tt.want {
				t.Errorf("versionFromBuildInfo = %q, want %q", got, tt.want)
			}
		})
	}
}
