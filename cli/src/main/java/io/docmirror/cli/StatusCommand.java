package io.docmirror.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.feed.derive.Derivation;
import io.docmirror.feed.derive.DerivationRunner;
import io.docmirror.feed.derive.DerivationStatus;
import io.docmirror.feed.processor.ChangeFeedEstimator;
import io.docmirror.layout.EarlierLayout;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.sql.CopyState;
import io.docmirror.store.StoreClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Per mirrored container: the mirrored LSNs, lag, tables, rows, files and last commit.",
                "Per derivation the config file declares: its lag behind the source and the errors recorded."})
final class StatusCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Mixin
    MirrorStoreOption storeOption = new MirrorStoreOption();

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        List<Derivation> derivations = dataDir.derivations();
        List<ContainerStatus> statuses;
        List<DerivationStatus> derivationStatuses;
        try (StoreClient store = storeOption.open(dataDir)) {
            statuses = ContainerStatus.ofMirroredContainers(dataDir.catalogSettings(), store, Clock.systemUTC());
            derivationStatuses = DerivationRunner.withDefaults(store, derivations).status();
        }
        Optional<CopyState> copy = CopyState.read(dataDir.mirrorDirectory());
        if (json) {
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            ObjectNode output = mapper.createObjectNode();
            ArrayNode containers = output.putArray("containers");
            statuses.forEach(status -> containers.add(toJson(status, dataDir.mirrorDirectory(), copy)));
            ArrayNode derived = output.putArray("derivations");
            derivationStatuses.forEach(status -> derived.add(toJson(status)));
            System.out.println(mapper.writeValueAsString(output));
            return ExitCodes.OK;
        }
        System.out.printf("%-24s %8s %-24s %12s %10s %7s %12s %6s %6s  %s%n", "container", "batch", "last commit",
                "lag events", "lag s", "tables", "stored rows", "files", "dead", "mirrored LSN per feed range");
        for (ContainerStatus status : statuses) {
            boolean lagKnown = status.storeUnreachable() == null;
            System.out.printf("%-24s %8d %-24s %12s %10s %7d %,12d %6d %6d  %s%n", status.container(),
                    status.batch(), status.batch() == 0 ? "never" : Instant.ofEpochMilli(status.lastCommitMillis()),
                    lagKnown ? String.format("%,d", status.lagEvents()) : "?",
                    lagKnown ? String.format("%.1f", seconds(status.lagTime())) : "?", status.tables(),
                    status.storedRows(), status.files(), status.deadLetters(),
                    lagKnown ? mirroredLsns(status.lag()) : "store unreachable: " + status.storeUnreachable());
            if (status.cosmosFeedMode() != null) {
                System.out.println("  source: " + status.cosmosFeedMode());
            }
            System.out.println("  SQL copy: " + copy.map(state -> copyLine(state, status))
                    .orElse("none kept yet (the SQL endpoint makes it in " + MirrorLayout.servingCopyDirectory(
                            dataDir.mirrorDirectory()) + " as it first opens)"));
            EarlierLayout.message(dataDir.mirrorDirectory(), status.container())
                    .ifPresent(message -> System.out.println("  not mirrored: " + message));
            if (!status.damagedFiles().isEmpty()) {
                System.out.printf("  %d damaged file(s); `docmirror repair --container %s` mends them:%n",
                        status.damagedFiles().size(), status.container());
                status.damagedFiles().forEach(damage -> System.out.println("    " + damage));
            }
        }
        if (!derivationStatuses.isEmpty()) {
            System.out.println();
            DeriveCommand.printStatus(derivationStatuses);
        }
        return ExitCodes.OK;
    }

    /** Where the SQL endpoint's copy of a container stands, next to the container's tables. */
    private static String copyLine(CopyState copy, ContainerStatus status) {
        Long batch = copy.batches().get(status.container());
        String remade = copy.remadeBecause() == null ? "" : "; made again from the tables: " + copy.remadeBecause();
        if (batch == null) {
            return "not copied yet" + remade;
        }
        return "at batch " + batch + ", " + (status.batch() - batch) + " batch(es) behind the tables, as of "
                + Instant.ofEpochMilli(copy.appliedAtMillis()) + remade;
    }

    private static ObjectNode toJson(ContainerStatus status, Path mirrorDirectory, Optional<CopyState> copy) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("container", status.container());
        copy.ifPresent(state -> {
            ObjectNode copied = json.putObject("sqlCopy");
            Long batch = state.batches().get(status.container());
            if (batch == null) {
                copied.putNull("batch");
            } else {
                copied.put("batch", batch).put("batchesBehind", status.batch() - batch);
            }
            copied.put("appliedAtMillis", state.appliedAtMillis());
            copied.put("remadeBecause", state.remadeBecause());
        });
        // A mirror in the manifest format of earlier versions is neither read nor converted: what to do about it.
        EarlierLayout.message(mirrorDirectory, status.container()).ifPresent(message -> json.put("earlierLayout",
                message));
        if (status.cosmosFeedMode() != null) {
            json.put("source", status.cosmosFeedMode());
        }
        json.put("batch", status.batch());
        json.put("lastCommitMillis", status.lastCommitMillis());
        if (status.storeUnreachable() == null) {
            json.put("lagEvents", status.lagEvents());
            json.put("lagSeconds", seconds(status.lagTime()));
        } else {
            // Unknown while the store does not answer; the mirror's own figures below are as committed.
            json.putNull("lagEvents");
            json.putNull("lagSeconds");
            json.put("storeUnreachable", status.storeUnreachable());
        }
        json.put("tables", status.tables());
        json.put("storedRows", status.storedRows());
        json.put("files", status.files());
        json.put("deadLetters", status.deadLetters());
        json.put("conflicts", status.conflicts());
        status.damagedFiles().forEach(json.putArray("damagedFiles")::add);
        json.set("feedRanges", feedRanges(status.lag()));
        return json;
    }

    private static ObjectNode toJson(DerivationStatus status) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("name", status.name());
        json.put("source", status.source());
        status.targets().forEach(json.putArray("targets")::add);
        json.put("lagEvents", status.eventsBehind());
        json.put("lagSeconds", seconds(status.timeBehind()));
        json.put("errors", status.errors());
        json.set("feedRanges", feedRanges(status.lag()));
        return json;
    }

    /** Per feed range: the position reached ({@code checkpointLsn}), the log's end, and the lag. */
    private static ArrayNode feedRanges(List<ChangeFeedEstimator.Lag> lags) {
        ArrayNode ranges = JsonNodeFactory.instance.arrayNode();
        for (ChangeFeedEstimator.Lag lag : lags) {
            ObjectNode range = ranges.addObject()
                    .put("feedRange", lag.feedRange().logPartition())
                    .put("checkpointLsn", lag.checkpointLsn())
                    .put("logEndLsn", lag.logEndLsn())
                    .put("lagEvents", lag.eventsBehind())
                    .put("lagSeconds", seconds(lag.timeBehind()));
            if (lag.owner() != null) {
                range.put("owner", lag.owner());
            }
        }
        return ranges;
    }

    private static Map<Integer, Long> mirroredLsns(List<ChangeFeedEstimator.Lag> lags) {
        Map<Integer, Long> positions = new TreeMap<>();
        lags.forEach(lag -> positions.put(lag.feedRange().logPartition(), lag.checkpointLsn()));
        return positions;
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }
}
