#!/usr/bin/env bash
# A throwaway PostgreSQL with pgvector for `npm run test:postgres`, on a Debian machine (run as root: CI does).
#   scripts/postgres-for-tests.sh start DIR   installs what is missing, starts a server in DIR, prints TEST_DATABASE_URL
#   scripts/postgres-for-tests.sh stop DIR    stops it (DIR can then be removed)
# Debian's PostgreSQL comes from the machine's own sources. Bookworm has no pgvector package, so its source package is
# fetched from Debian's next release with apt (the signed index vouches for the tarball's checksum) and built against
# the installed server; apt reads that source list from DIR, and the machine's own apt sources are left as they were.
set -euo pipefail

cmd="${1:-}"
dir="${2:-}"
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
port="${TEST_PG_PORT:-54329}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

as_postgres() { runuser -u postgres -- "$@"; }

if [[ "$cmd" == stop ]]; then
  bindir="$(pg_config --bindir)"
  as_postgres "$bindir/pg_ctl" -D "$dir/data" -m fast stop >/dev/null
  exit 0
fi
[[ "$cmd" == start ]] || { echo "unknown command: $cmd" >&2; exit 2; }

apt_quiet() { DEBIAN_FRONTEND=noninteractive apt-get -qq "$@" >/dev/null; }

if ! command -v pg_config >/dev/null 2>&1 || [[ ! -x "$(pg_config --bindir)/initdb" ]] \
  || [[ ! -d "$(pg_config --includedir-server)" ]]; then
  apt_quiet update
  major="$(apt-cache depends postgresql | sed -n 's/.*Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -1)"
  apt_quiet install -y postgresql postgresql-server-dev-"$major"
fi
bindir="$(pg_config --bindir)"

if [[ ! -f "$(pg_config --sharedir)/extension/vector.control" ]]; then
  src="$dir/pgvector-src"
  mkdir -p "$src/lists/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" > "$src/sources.list"
  apt_src=(-o "Dir::Etc::SourceList=$src/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$src/lists" -o Debug::NoLocking=1)
  apt-get -qq "${apt_src[@]}" update >/dev/null
  (cd "$src" && apt-get -qq "${apt_src[@]}" source --download-only pgvector >/dev/null 2>&1)
  tar -xzf "$src"/pgvector_*.orig.tar.gz -C "$src"
  # OPTFLAGS="": no -march=native, so the build does not depend on this CPU.
  make -s -C "$src"/pgvector-*/ OPTFLAGS="" -j"$(nproc)" >/dev/null 2>&1
  make -s -C "$src"/pgvector-*/ install >/dev/null 2>&1
fi

chown postgres "$dir"
if [[ ! -f "$dir/data/PG_VERSION" ]]; then
  as_postgres "$bindir/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
fi
# A test server: durability off (nothing here outlives the run), many connections (two test files at once, each with
# several pools and child processes).
as_postgres "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-p $port -k $dir -c listen_addresses='' -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >/dev/null
as_postgres "$bindir/psql" -h "$dir" -p "$port" -U postgres -qAtc 'CREATE EXTENSION IF NOT EXISTS vector' postgres >/dev/null
echo "postgres://postgres@localhost:$port/postgres?host=$(node -p 'encodeURIComponent(process.argv[1])' "$dir")"
