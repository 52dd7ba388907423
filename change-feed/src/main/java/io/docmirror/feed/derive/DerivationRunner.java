package io.docmirror.feed.derive;

import io.docmirror.feed.processor.ChangeFeedEstimator;
import io.docmirror.feed.processor.ChangeFeedProcessor;
import io.docmirror.feed.processor.ProcessorOptions;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * Keeps the configured derivations' target containers: one change feed processor per derivation, reading its source
 * in all versions and deletes mode, with its checkpoints in the store's lease container under the derivation's
 * name. {@link #start()} runs them in the background ({@code derive run}, {@code run}); {@link #catchUp()} applies
 * everything up to the feed's current end and returns ({@code derive sync}, tests). Both share the checkpoints, so
 * either carries on where the other stopped.
 */
public final class DerivationRunner implements AutoCloseable {
    private final StoreClient store;
    private final List<Derivation> derivations;
    private final Function<String, ProcessorOptions> processorOptions;
    private final Clock clock;
    private final DerivationErrors errors;
    private final Map<String, DerivationHandler> handlers = new LinkedHashMap<>();
    private final Map<String, ChangeFeedProcessor> processors = new LinkedHashMap<>();

    /**
     * @param processorOptions the processor options for a processor name (the derivation's); their mode must be
     *     all versions and deletes, since deletes are what the derivation cascades
     */
    public DerivationRunner(StoreClient store, List<Derivation> derivations,
            Function<String, ProcessorOptions> processorOptions, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.derivations = List.copyOf(derivations);
        this.processorOptions = requireNonNull(processorOptions, "processorOptions is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.errors = new DerivationErrors(store);
    }

    /** The runner for a process: processor defaults, this host and process as the worker. */
    public static DerivationRunner withDefaults(StoreClient store, List<Derivation> derivations) {
        String worker = ProcessHandle.current().pid() + "@" + hostName();
        return new DerivationRunner(store, derivations, name -> ProcessorOptions.defaults(name, worker),
                Clock.systemUTC());
    }

    /**
     * Checks the sources, creates the target containers and the errors container where missing, and sets up one
     * processor per derivation. Safe to call again.
     *
     * @throws IllegalArgumentException when a source container is missing or a target exists with another
     *     partition key path
     */
    public synchronized void prepare() {
        if (!processors.isEmpty()) {
            return;
        }
        errors.ensureContainer();
        for (Derivation derivation : derivations) {
            if (!sourceExists(derivation)) {
                throw new IllegalArgumentException("Derivation " + derivation.name() + " reads container "
                        + derivation.source() + ", which does not exist; create it or fix the configuration");
            }
            for (TargetMapping target : derivation.targets()) {
                ensureTarget(derivation, target);
            }
            ProcessorOptions options = processorOptions.apply(derivation.processorName());
            DerivationHandler handler = new DerivationHandler(store, derivation, errors);
            handlers.put(derivation.name(), handler);
            processors.put(derivation.name(),
                    new ChangeFeedProcessor(store, derivation.source(), handler, options, clock));
        }
    }

    /** Starts every derivation's processor in the background. */
    public synchronized void start() {
        prepare();
        processors.values().forEach(ChangeFeedProcessor::start);
    }

    /**
     * Applies every change up to the current end of each source's feed, on this thread.
     *
     * @return how many source changes were handled
     */
    public long catchUp() throws Exception {
        prepare();
        long handled = 0;
        for (ChangeFeedProcessor processor : processors.values()) {
            handled += processor.catchUp();
        }
        return handled;
    }

    public synchronized void stop() {
        processors.values().forEach(ChangeFeedProcessor::stop);
    }

    @Override
    public void close() {
        stop();
    }

    /** Each derivation's lag per feed range, counters and recorded errors, as status and metrics show them. */
    public List<DerivationStatus> status() {
        List<DerivationStatus> statuses = new ArrayList<>();
        for (Derivation derivation : derivations) {
            ProcessorOptions options = processorOptions.apply(derivation.processorName());
            List<ChangeFeedEstimator.Lag> lag = sourceExists(derivation)
                    ? ChangeFeedEstimator.estimate(store, derivation.source(), derivation.processorName(),
                            options.leaseContainer(), clock)
                    : List.of();
            DerivationHandler handler = handlers.get(derivation.name());
            ChangeFeedProcessor processor = processors.get(derivation.name());
            statuses.add(new DerivationStatus(derivation.name(), derivation.source(),
                    derivation.targets().stream().map(TargetMapping::container).toList(), lag,
                    errors.list(derivation.name()).size(),
                    handler == null ? 0 : handler.eventsDerived(),
                    handler == null ? 0 : handler.documentsWritten(),
                    handler == null ? 0 : handler.documentsDeleted(),
                    processor == null ? 0 : processor.failures()));
        }
        return statuses;
    }

    private boolean sourceExists(Derivation derivation) {
        return store.listContainers().stream().anyMatch(container -> container.id().equals(derivation.source()));
    }

    public DerivationErrors errors() {
        return errors;
    }

    private void ensureTarget(Derivation derivation, TargetMapping target) {
        ContainerProperties wanted = target.containerProperties();
        try {
            store.createContainer(wanted);
        } catch (StoreException e) {
            if (e.code() != StoreErrorCode.CONFLICT) {
                throw e;
            }
            ContainerProperties existing = store.readContainer(target.container());
            if (!existing.partitionKeyPath().equals(wanted.partitionKeyPath())) {
                throw new IllegalArgumentException("Derivation " + derivation.name() + " writes container "
                        + target.container() + " with partition key " + wanted.partitionKeyPath()
                        + ", but it exists with partition key " + existing.partitionKeyPath()
                        + "; a partition key cannot change, so delete the container or fix the configuration", e);
            }
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
