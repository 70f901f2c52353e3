#!/usr/bin/env bash
# Record build.har, probe-reads.har and probe-crud.har of a project tracker served by Ruby on Rails
# 6.1 (API-only scaffold controllers, ActiveRecord on SQLite) with ransack filters and kaminari
# pages through api-pagination (the app is app.rb in this folder, its seed seed.json) into this
# folder, with its README.md.
# Usage: bash tests/corpus/apps/rails-ransack/record.sh (from anywhere; as root for apt-get).
# Ruby, Rails, sqlite3, kaminari, api-pagination, webrick and bundler come from Debian bookworm
# (installed with apt-get when missing). ransack is not packaged by Debian: it is installed into
# REA_RAILS_RANSACK_GEMS (default /tmp/rea-rails-ransack-gems) with `gem install ransack -v 4.2.1`
# from rubygems.org, or from a local .gem file named by REA_RANSACK_GEM. Gemfile pins every gem and
# Gemfile.lock the whole resolution (`bundle check` must pass against Debian's gems). Logs and the
# SQLite file go to run/ (git-ignored); the server and the proxy bind 127.0.0.1 only and are
# stopped by PID.
set -euo pipefail
cd "$(dirname "$0")"

debs=(ruby-full build-essential libsqlite3-dev libyaml-dev pkg-config bundler
      ruby-rails ruby-sqlite3 ruby-kaminari ruby-api-pagination ruby-webrick)
missing=()
for d in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "install ok installed" || missing+=("$d")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

gems="${REA_RAILS_RANSACK_GEMS:-/tmp/rea-rails-ransack-gems}"
GEM_HOME="$gems"
GEM_PATH="$gems:$(ruby -e 'print Gem.default_path.join(":")')"
export GEM_HOME GEM_PATH
if ! gem list -i ransack -v 4.2.1 >/dev/null; then
  # its dependencies (activerecord, activesupport, i18n) are Debian's
  if [ -n "${REA_RANSACK_GEM:-}" ]; then
    gem install --local --no-document --ignore-dependencies "$REA_RANSACK_GEM"
  else
    gem install --no-document --ignore-dependencies ransack -v 4.2.1
  fi
fi
BUNDLE_GEMFILE="$PWD/Gemfile" bundle check

bash ../../kit/setup.sh
mkdir -p run
env REA_RAILS_RANSACK_GEMS="$gems" ../../kit/.venv/bin/python record.py
