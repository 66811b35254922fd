#!/usr/bin/env bash
# Takes the screenshots in docs/ of the real window under a private Xvfb,
# driving it with the keyboard as .ci/smoke does.
#   docs/shots.sh ./privmap [adult.data]
# With UCI Adult's adult.data it also shoots census.png, the compare
# screen on its age × sex table. SIZE (default 1200x760, the window's
# own) and THEME (dark or light) choose the window; other than the
# default they name the files, e.g. SIZE=1600x1000 THEME=light writes
# compare-1600x1000-light.png. OUT is the folder (default docs/).
set -euo pipefail
bin=${1:-./privmap}
dir=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$dir}
size=${SIZE:-1200x760}
theme=${THEME:-dark}
suffix=""
[ "$size" != 1200x760 ] && suffix="-$size"
[ "$theme" != dark ] && suffix="$suffix-$theme"
width=${size%x*}
height=${size#*x}
# Mouse positions are given for 1200×760 and scaled to the window.
mx() { echo $(($1 * width / 1200)); }
my() { echo $(($1 * height / 760)); }
export FYNE_THEME=$theme
disp=98
while [ -e /tmp/.X11-unix/X$disp ]; do disp=$((disp + 1)); done
Xvfb :$disp -screen 0 $((width + 40))x$((height + 60))x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
cfg=$(mktemp -d)
trap 'kill $app $xvfb 2>/dev/null; wait $app $xvfb 2>/dev/null; rm -rf "$cfg"' EXIT
for _ in $(seq 50); do [ -e /tmp/.X11-unix/X$disp ] && break; sleep 0.2; done
export DISPLAY=:$disp
# Compare three estimators (with [IBU]_R, its bootstrap intervals make a long run that asks first).
mkdir -p "$cfg/fyne/io.github.privmap"
# The release's uncertainty map beside its three where there is room.
relmap=false
[ "$width" -ge 1600 ] && relmap=true
echo '{"welcome.shown":true,"run.methods":"gibu,ibu-m,inv-m","experiment.name":"cem-fig8","experiment.runs":"20","release.uncertaintyMap":'$relmap',"plan.target":"0.2"}' >"$cfg/fyne/io.github.privmap/preferences.json"
# A basemap made offline: synthetic tiles over the default data's box.
go run "$dir/../app/basemap/basemaptest/mkmbtiles" -o "$cfg/sf.mbtiles"
PRIVMAP_BASEMAP=$cfg/sf.mbtiles XDG_CONFIG_HOME=$cfg "$bin" >/dev/null 2>&1 &
app=$!
wid=$(timeout 60 xdotool search --sync --onlyvisible --name '^privmap$' | head -1)
xdotool windowsize --sync "$wid" "$width" "$height" || true
xdotool windowfocus --sync "$wid"
sleep 4
key() { xdotool key --clearmodifiers "$@"; sleep 0.8; }
shot() { sleep 1; import -window "$wid" "$out/$1$suffix.png"; }
move() { xdotool mousemove "$(mx "$1")" "$(my "$2")"; }
# Hover over the map for the data screen's cell read-out.
move 800 300; shot data
# FW Table 7: five geometric and five k-RR mechanisms.
# FW Table 7 follows the default population, FW Table 6, in the list.
key ctrl+p; key Right; key ctrl+shift+p
move 1100 700; shot population
key ctrl+3
move 1100 700
key ctrl+r
timeout 120 xdotool search --sync --name 'compared$' >/dev/null
# The estimates' intervals follow the run: their uncertainty map.
timeout 600 xdotool search --sync --name 'with intervals$' >/dev/null
key ctrl+4
move 640 260; shot compare
# The Run screen's plan: how many users for a TV of at most 0.2.
key ctrl+3
key ctrl+l
timeout 300 xdotool search --sync --name 'planned$' >/dev/null
move 1100 700; shot run
# The release screen: the default geometric mixture on the data.
key ctrl+5
key ctrl+r
sleep 2
move 640 260; shot release
# The experiments screen on CEM Fig. 8 at 20 runs (chosen in the
# preferences written above).
key ctrl+6
key ctrl+r
timeout 300 xdotool search --sync --name 'finished$' >/dev/null
move 800 400; shot experiments
key ctrl+4
key ctrl+e
key ctrl+a
xdotool type --delay 10 "$out/figure$suffix.png"
key Return
sleep 2

# The census compare screen, on a file given (not shipped: UCI Adult).
if [ -n "${2:-}" ]; then
	kill $app; wait $app 2>/dev/null || true
	XDG_CONFIG_HOME=$cfg "$bin" gui "$2" >/dev/null 2>&1 &
	app=$!
	wid=$(timeout 60 xdotool search --sync --onlyvisible --name '^privmap$' | head -1)
	xdotool windowsize --sync "$wid" "$width" "$height" || true
	xdotool windowfocus --sync "$wid"
	sleep 5
	key ctrl+r
	timeout 120 xdotool search --sync --name 'compared$' >/dev/null
	key ctrl+4
	move 300 250; shot census
fi
