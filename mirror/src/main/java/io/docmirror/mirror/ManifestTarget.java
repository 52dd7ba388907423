package io.docmirror.mirror;

import io.docmirror.mirror.manifest.Checkpoint;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.store.changelog.ChangeEvent;

/** A {@link ContainerMirror} (the manifest format) as a target of the streaming mirror. */
final class ManifestTarget implements MirrorTarget {
    private final ContainerMirror mirror;

    ManifestTarget(ContainerMirror mirror) {
        this.mirror = mirror;
    }

    ContainerMirror mirror() {
        return mirror;
    }

    @Override
    public String container() {
        return mirror.container();
    }

    @Override
    public Checkpoint checkpoint() {
        return mirror.checkpoint();
    }

    @Override
    public String position() {
        return mirror.manifest().map(manifest -> "version " + manifest.version()).orElse("its start");
    }

    @Override
    public Batch begin() {
        ContainerMirror.Batch batch = mirror.begin();
        return new Batch() {
            @Override
            public void add(ChangeEvent event) {
                batch.add(event);
            }

            @Override
            public long events() {
                return batch.events();
            }

            @Override
            public Committed commit(Checkpoint checkpoint) {
                ContainerMirror.Commit commit = batch.commit(checkpoint);
                return new Committed("version " + commit.manifest().version(), commit.filesWritten().size(),
                        commit.filesWritten().stream().mapToLong(DataFile::bytes).sum());
            }

            @Override
            public void abort() {
                batch.abort();
            }
        };
    }

    @Override
    public void close() {
        mirror.close();
    }
}
