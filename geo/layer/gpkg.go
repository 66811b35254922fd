package layer

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkb"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

// GeoPackage identifiers (OGC 12-128r18 §1.1.1.1.1): the application id
// "GPKG" and the version 1.3.0 as user_version (GDAL before 3.7 warns on 1.4).
const (
	gpkgApplicationID = 0x47504B47
	gpkgVersion       = 10300
)

// wgs84WKT is EPSG:4326's definition as gpkg_spatial_ref_sys holds it.
const wgs84WKT = `GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]`

// geoPackage is the GeoPackage format's record (formats).
var geoPackage = Format{Name: "GeoPackage", Exts: []string{".gpkg"}, Holds: "a polygon a cell, with its numbers, for QGIS or kepler.gl",
	Write: WriteGeoPackage}

// WriteGeoPackage writes l to w as an OGC GeoPackage: the required
// tables gpkg_spatial_ref_sys (with EPSG:4326 and the two undefined
// systems) and gpkg_contents, gpkg_geometry_columns, and the features
// table named l.Name with fid, geom (a POLYGON in GeoPackage binary:
// the header with its envelope, then little-endian WKB), cell, row,
// col and one column per value column (INTEGER or REAL). The database
// is built in a temporary file (SQLite writes files, not streams),
// copied to w and removed; ctx cancels between blocks of rows.
func WriteGeoPackage(ctx context.Context, w io.Writer, l *Layer) error {
	if err := l.Check(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "privmap-gpkg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "layer.gpkg")
	if err := buildGeoPackage(ctx, path, l); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

func buildGeoPackage(ctx context.Context, path string, l *Layer) (err error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()
	db.SetMaxOpenConns(1)
	g := l.Grid
	stmts := []string{
		fmt.Sprintf("PRAGMA application_id = %d", gpkgApplicationID),
		fmt.Sprintf("PRAGMA user_version = %d", gpkgVersion),
		`CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY,
			organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT)`,
		`INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84 geodetic', 4326, 'EPSG', 4326, '` + wgs84WKT + `', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid')`,
		`INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system')`,
		`INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system')`,
		`CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
			description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
			min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
			CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id))`,
		`CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
			srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
			CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
			CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
			CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id))`,
		fmt.Sprintf(`INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, min_x, min_y, max_x, max_y, srs_id)
			VALUES ('%s', 'features', '%s', '%s', '%s', %s, %s, %s, %s, 4326)`,
			l.Name, l.Name, strings.ReplaceAll(description(l), "'", "''"), time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
			sqlFloat(g.West), sqlFloat(g.South), sqlFloat(g.East), sqlFloat(g.North)),
		fmt.Sprintf(`INSERT INTO gpkg_geometry_columns VALUES ('%s', 'geom', 'POLYGON', 4326, 0, 0)`, l.Name),
		createFeatures(l),
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("layer: GeoPackage: %w", err)
		}
	}
	return insertFeatures(ctx, db, l)
}

// createFeatures returns the features table's CREATE statement.
// description describes the layer's table in gpkg_contents: the grid,
// and the program that wrote it.
func description(l *Layer) string {
	d := fmt.Sprintf("privmap grid of %d×%d cells", l.Grid.Cols, l.Grid.Rows)
	if l.Software != "" {
		d += ", written by " + l.Software
	}
	return d
}

func createFeatures(l *Layer) string {
	var b strings.Builder
	fmt.Fprintf(&b, `CREATE TABLE "%s" (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom POLYGON, cell INTEGER NOT NULL, row INTEGER NOT NULL, col INTEGER NOT NULL`, l.Name)
	for _, c := range l.Columns {
		typ := "REAL"
		if c.Integer {
			typ = "INTEGER"
		}
		fmt.Fprintf(&b, `, "%s" %s NOT NULL`, c.Name, typ)
	}
	b.WriteString(")")
	return b.String()
}

// insertFeatures inserts every cell, fid = cell + 1, in transactions of
// insertBlock rows.
func insertFeatures(ctx context.Context, db *sql.DB, l *Layer) error {
	const insertBlock = 10000
	q := fmt.Sprintf(`INSERT INTO "%s" VALUES (?, ?, ?, ?, ?%s)`, l.Name, strings.Repeat(", ?", len(l.Columns)))
	g := l.Grid
	args := make([]any, 5+len(l.Columns))
	for from := 0; from < g.Len(); from += insertBlock {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			tx.Rollback()
			return err
		}
		for x := from; x < min(from+insertBlock, g.Len()); x++ {
			args[0], args[1], args[2], args[3], args[4] = x+1, geometryBlob(g, x), x, x/g.Cols, x%g.Cols
			for i, c := range l.Columns {
				if c.Integer {
					args[5+i] = int64(c.Values[x])
				} else {
					args[5+i] = c.Values[x]
				}
			}
			if _, err := st.ExecContext(ctx, args...); err != nil {
				tx.Rollback()
				return fmt.Errorf("layer: GeoPackage: cell %d: %w", x, err)
			}
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// geometryBlob returns cell x's polygon as a GeoPackage binary geometry
// (OGC 12-128r18 §2.1.3): magic "GP", version 0, flags 0b00000011
// (little-endian, envelope [minx, maxx, miny, maxy]), srs_id 4326, the
// envelope, then the polygon in little-endian WKB.
func geometryBlob(g Grid, x int) []byte {
	b := g.Cell(x)
	buf := make([]byte, 8, 8+32+93)
	copy(buf, "GP")
	buf[2], buf[3] = 0, 0b00000011
	binary.LittleEndian.PutUint32(buf[4:], 4326)
	for _, v := range []float64{b.Min[0], b.Max[0], b.Min[1], b.Max[1]} {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	return append(buf, wkb.MustMarshal(orb.Polygon{g.ring(x)}, binary.LittleEndian)...)
}

// sqlFloat writes v so that SQLite reads back the same float64.
func sqlFloat(v float64) string { return fmt.Sprintf("%.17g", v) }
