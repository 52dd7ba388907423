package io.docmirror.cli;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.mirror.source.KafkaTopicSource;
import io.docmirror.source.cosmos.CosmosAccount;
import io.docmirror.store.StoreClient;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.util.Optional;
import java.util.function.Function;

/** Where {@code mirror sync} and {@code mirror run} find the containers and read their changes. */
final class MirrorSourceOptions {
    /** The environment variable with a Cosmos DB account's key, when --key is not given. */
    static final String COSMOS_KEY_VARIABLE = "DOCMIRROR_COSMOS_KEY";

    enum Source { EMBEDDED, KAFKA, COSMOS }

    @Option(names = "--source", paramLabel = "embedded|kafka|cosmos", defaultValue = "embedded",
            description = "Read changes from the store's own change feed (embedded, the default), from the "
                    + "containers' Kafka topics (kafka.* options; `store serve --publish-kafka` writes them), or "
                    + "from a Cosmos DB account's change feed (cosmos: --endpoint, --key, --database).")
    Source source;

    @Mixin
    MirrorStoreOption store = new MirrorStoreOption();

    @Option(names = "--endpoint", paramLabel = "URL",
            description = "With --source cosmos: the Cosmos DB account (e.g. https://myaccount.documents.azure.com:443/)"
                    + ", or docmirror's store serving the Cosmos DB routes.")
    String endpoint;

    @Option(names = "--key", paramLabel = "KEY",
            description = "With --source cosmos: the account's primary or read-only key (default: $"
                    + COSMOS_KEY_VARIABLE + ", which keeps it out of the process list).")
    String key;

    @Option(names = "--database", paramLabel = "DB",
            description = "With --source cosmos: mirror the containers of this database only (default: every "
                    + "database of the account). Container c of database d is mirrored as d.c.")
    String database;

    /** The source opened, which the caller closes after the mirror. */
    interface Opened extends AutoCloseable {
        FeedMirror mirror(DataDirOptions dataDir, MirrorConfig config,
                Function<String, FlattenerConfig> flattenerConfigs, Clock clock);

        /** The store mirrored, whose change log measures the mirror's lag; empty for a Cosmos DB account. */
        Optional<StoreClient> store();

        /** The source, as a message names it. */
        String describe();

        @Override
        void close();
    }

    /**
     * @throws IllegalArgumentException when the options do not fit together (a Cosmos DB account without an
     *     endpoint or key, say)
     * @throws io.docmirror.store.StoreException when a Cosmos DB account refuses the key or does not answer
     */
    Opened open(DataDirOptions dataDir) {
        if (source != Source.COSMOS) {
            if (endpoint != null || key != null || database != null) {
                throw new IllegalArgumentException("--endpoint, --key and --database name a Cosmos DB account: "
                        + "give them with --source cosmos");
            }
            return openStore(dataDir);
        }
        if (store.url != null) {
            throw new IllegalArgumentException("--store names docmirror's store, --source cosmos a Cosmos DB account "
                    + "(--endpoint): give one of them");
        }
        String accountKey = key != null ? key : System.getenv(COSMOS_KEY_VARIABLE);
        if (endpoint == null || accountKey == null) {
            throw new IllegalArgumentException("--source cosmos needs the account's --endpoint and its key (--key, or $"
                    + COSMOS_KEY_VARIABLE + ")");
        }
        CosmosAccount account = CosmosAccount.connect(endpoint, accountKey, Optional.ofNullable(database));
        return new Opened() {
            @Override
            public FeedMirror mirror(DataDirOptions dataDir, MirrorConfig config,
                    Function<String, FlattenerConfig> flattenerConfigs, Clock clock) {
                return new FeedMirror(account, account.opener(), dataDir.mirrorDirectory(), config, flattenerConfigs,
                        clock);
            }

            @Override
            public Optional<StoreClient> store() {
                return Optional.empty();
            }

            @Override
            public String describe() {
                return "the Cosmos DB account at " + endpoint + (database == null ? "" : ", database " + database);
            }

            @Override
            public void close() {
                account.close();
            }
        };
    }

    private Opened openStore(DataDirOptions dataDir) {
        StoreClient opened = store.open(dataDir);
        return new Opened() {
            @Override
            public FeedMirror mirror(DataDirOptions dataDir, MirrorConfig config,
                    Function<String, FlattenerConfig> flattenerConfigs, Clock clock) {
                return new FeedMirror(opened, changeSources(opened, dataDir), dataDir.mirrorDirectory(), config,
                        flattenerConfigs, clock);
            }

            @Override
            public Optional<StoreClient> store() {
                return Optional.of(opened);
            }

            @Override
            public String describe() {
                return store.describe(dataDir) + (source == Source.KAFKA ? " through Kafka" : "");
            }

            @Override
            public void close() {
                opened.close();
            }
        };
    }

    private ChangeSource.Opener changeSources(StoreClient opened, DataDirOptions dataDir) {
        return switch (source) {
            case EMBEDDED -> EmbeddedFeedSource.opener(opened);
            case KAFKA -> KafkaTopicSource.opener(dataDir.kafkaConfig());
            case COSMOS -> throw new IllegalStateException("a Cosmos DB account is not a store");
        };
    }
}
