package io.docmirror.mirror.iceberg;

import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorTables;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * A container's namespace in the catalog, and which container it mirrors: the store's resource id ({@code _rid}),
 * never reused, tells a container from an earlier one of the same name (deleted and created again), whose tables
 * are dropped so that the new one is mirrored from its first change, as Cosmos DB drops a deleted container's
 * analytical store.
 */
final class ContainerNamespace {
    private static final Logger log = LoggerFactory.getLogger(ContainerNamespace.class);

    private ContainerNamespace() {
    }

    /**
     * Creates the container's namespace, or takes it over for a container created again under the same name.
     *
     * @param resourceId the container's {@code _rid}; null: unknown (the namespace is taken as it is)
     */
    static void claim(Catalog catalog, String container, String resourceId, String rootTable) {
        SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
        Namespace namespace = MirrorTables.namespace(container);
        Map<String, String> properties = new HashMap<>();
        properties.put(MirrorProperties.ROOT_TABLE, rootTable);
        if (resourceId != null) {
            properties.put(MirrorProperties.CONTAINER_RID, resourceId);
        }
        if (!namespaces.namespaceExists(namespace)) {
            namespaces.createNamespace(namespace, properties);
            return;
        }
        Map<String, String> recorded = namespaces.loadNamespaceMetadata(namespace);
        String mirrored = recorded.get(MirrorProperties.CONTAINER_RID);
        if (resourceId == null || resourceId.equals(mirrored)) {
            if (!rootTable.equals(recorded.get(MirrorProperties.ROOT_TABLE))) {
                namespaces.setProperties(namespace, Map.of(MirrorProperties.ROOT_TABLE, rootTable));
            }
            return;
        }
        if (mirrored != null) {
            log.warn("The tables of {} mirror an earlier container of that name ({}), not the one the store has now "
                    + "({}): dropping them to mirror it from its first change", container, mirrored, resourceId);
            for (TableIdentifier table : catalog.listTables(namespace)) {
                catalog.dropTable(table, true);
            }
        }
        namespaces.setProperties(namespace, properties);
    }
}
