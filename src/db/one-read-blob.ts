// A dumpDataDir() tarball handed to PGlite's loadDataDir without a copy.

/**
 * The bytes as PGlite reads them (loadDataDir: a Blob, of which it calls arrayBuffer() once), without copying them:
 * Node 20 builds a Blob's arrayBuffer() from 64 KB chunks, ~0.4 s for the 41 MB of a migrated database, at every
 * start of a test's database. The bytes are handed over once and not kept, as PGlite may keep its options.
 */
export function oneReadBlob(bytes: ArrayBuffer): Blob {
  let held: ArrayBuffer | null = bytes;
  return new (class extends Blob {
    override async arrayBuffer(): Promise<ArrayBuffer> {
      const given = held;
      held = null;
      if (!given) throw new Error('the tarball was read already');
      return given;
    }
  })([]);
}
