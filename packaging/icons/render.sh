#!/bin/sh
# Renders the hicolor PNGs of TrainScope's icon from its SVG sources. The PNGs are committed,
# so building and packaging need no SVG renderer; run this again after editing an SVG:
#   apt-get install librsvg2-bin && packaging/icons/render.sh
set -eu
cd "$(dirname "$0")"
APP=io.github.trainscope.TrainScope
for size in 16 32 48 64 128 256; do
  src=$APP.svg
  [ "$size" -eq 16 ] && src=icon-16.svg
  mkdir -p "hicolor/${size}x${size}/apps"
  rsvg-convert -w "$size" -h "$size" "$src" -o "hicolor/${size}x${size}/apps/$APP.png"
done
