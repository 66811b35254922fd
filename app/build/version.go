package build

// Version is privmap's release, as FyneApp.toml gives it.
const Version = "0.1.0"

// UserAgent names privmap to the servers it asks for map tiles, as
// OpenStreetMap's tile usage policy requires.
const UserAgent = "privmap/" + Version + " (+https://github.com/privmap/privmap)"
