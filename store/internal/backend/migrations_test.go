package backend

import (
	"testing"
	"testing/fstest"
)

func TestLatestMigration(t *testing.T) {
	tests := map[string]struct {
		files   []string
		want    int
		wantErr bool
	}{
		"in order":               {files: []string{"0001_init.sql", "0002_more.sql"}, want: 2},
		"a gap and out of order": {files: []string{"0010_late.sql", "0001_init.sql", "0003_x.sql"}, want: 10},
		"no migration":           {files: []string{"README"}, want: 0},
		"a bad version":          {files: []string{"0001_init.sql", "x1_bad.sql"}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tc.files {
				fsys[f] = &fstest.MapFile{Data: []byte("SELECT 1;")}
			}
			got, err := LatestMigration(fsys)
			if (err != nil) != tc.wantErr {
				t.Fatalf("LatestMigration: err %v, want an error: %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			ms, err := LoadMigrations(fsys)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || got != LatestVersion(ms) {
				t.Errorf("LatestMigration = %d, want %d (LatestVersion of the loaded ones: %d)", got, tc.want, LatestVersion(ms))
			}
		})
	}
}
