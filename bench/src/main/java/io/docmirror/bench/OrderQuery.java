package io.docmirror.bench;

import java.util.List;

/**
 * One query of the SQL benchmarks' query set over the demo orders, as each side spells it: {@code tablesSql} names
 * the tables {@code {orders}} and {@code {items}} (the mirror's views, or clean Parquet files), {@code rawJsonSql}
 * reads the orders' JSON Lines as {@code {raw}}.
 */
record OrderQuery(String name, String tablesSql, String rawJsonSql) {
    /**
     * The query set: a group-by over the child table, a parent-child join, a point lookup by id and a filter on a
     * flattened nested field.
     *
     * @param lookupId the id the point lookup asks for
     */
    static List<OrderQuery> set(String lookupId) {
        return List.of(
                new OrderQuery("group-by over the child table",
                        "SELECT name, count(*) AS lines, round(sum(quantity * unitPrice), 2) AS revenue FROM {items} "
                                + "GROUP BY name ORDER BY name",
                        "SELECT item.name, count(*), round(sum(item.quantity * item.unitPrice), 2) FROM "
                                + "(SELECT unnest(items) AS item FROM {raw}) GROUP BY 1 ORDER BY 1"),
                new OrderQuery("join of parent and child",
                        "SELECT o.shippingMethod, count(*) AS lines, sum(i.quantity) AS units FROM {orders} o "
                                + "JOIN {items} i ON i._id = o.id GROUP BY ALL ORDER BY 1",
                        "SELECT shippingMethod, count(*), sum(item.quantity) FROM (SELECT shippingMethod, "
                                + "unnest(items) AS item FROM {raw}) GROUP BY ALL ORDER BY 1"),
                new OrderQuery("point lookup by id",
                        "SELECT id, total, customer__billingAddress__city FROM {orders} WHERE id = '" + lookupId + "'",
                        "SELECT id, total, customer.billingAddress.city FROM {raw} WHERE id = '" + lookupId + "'"),
                new OrderQuery("filter on a flattened nested field",
                        "SELECT count(*), round(sum(total), 2) FROM {orders} "
                                + "WHERE customer__billingAddress__state = 'WA' "
                                + "AND customer__shippingAddress__city = 'Seattle'",
                        "SELECT count(*), round(sum(total), 2) FROM {raw} WHERE customer.billingAddress.state = 'WA' "
                                + "AND customer.shippingAddress.city = 'Seattle'"));
    }

    /** The query over two relations (view names, or {@code read_parquet(...)}) for the orders and their items. */
    String onTables(String orders, String items) {
        return tablesSql.replace("{orders}", orders).replace("{items}", items);
    }

    /** The query over the orders' raw JSON, read by {@code reader} ({@code read_json_auto(...)}). */
    String onRawJson(String reader) {
        return rawJsonSql.replace("{raw}", reader);
    }
}
