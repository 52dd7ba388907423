/**
 * The Cosmos DB for NoSQL query language, as far as docmirror runs it, over JSON trees whose numbers are exact.
 *
 * <p>{@link io.docmirror.query.NoSqlQuery#parse} reads a query with ANTLR (the grammar is {@code NoSql.g4}), checks
 * it as Cosmos DB does and refuses, with a {@link io.docmirror.query.QueryException} naming the construct and its
 * line and column, what docmirror does not run. {@link io.docmirror.query.NoSqlQuery#page} runs it over documents a
 * page at a time.
 *
 * <h2>How a query travels through an SDK in gateway mode</h2>
 * <ol>
 *   <li>A query within one partition key value goes straight to the documents resource ({@code POST .../docs} with
 *       {@code x-ms-documentdb-isquery: True}): the gateway runs it and answers pages, each with a continuation
 *       ({@code x-ms-continuation}) until the last.</li>
 *   <li>A query across partitions first asks for a plan: the same POST with
 *       {@code x-ms-cosmos-is-query-plan-request: True}. The gateway answers {@link io.docmirror.query.QueryPlan#toJson}:
 *       {@code partitionedQueryExecutionInfoVersion}, {@code queryInfo} (what the SDK must do itself: merge-sort,
 *       DISTINCT, TOP, OFFSET LIMIT, aggregates, grouping) and {@code queryRanges} (the effective partition key ranges
 *       the query touches).</li>
 *   <li>The SDK sends each partition key range ({@code x-ms-documentdb-partitionkeyrangeid}) the {@code rewrittenQuery}
 *       (or the user's query when there is none) with the user's parameters. For ORDER BY it first replaces
 *       {@value io.docmirror.query.QueryPlan#ORDER_BY_FILTER_PLACEHOLDER} with {@code true}, or with a filter such as
 *       {@code c.age >= 42} when it resumes from a continuation. Each range answers pages like any query.</li>
 *   <li>The SDK merges: it merge-sorts ranges on {@code orderByItems} and unwraps {@code payload}; folds the
 *       {@code {"item": ...}} partial aggregates ({@code sum} and {@code count} for AVG, {@code min}/{@code max} and
 *       {@code count} for MIN and MAX); regroups GROUP BY results on {@code groupByItems}; removes duplicates for
 *       DISTINCT; and applies OFFSET, LIMIT and TOP to the merged stream.</li>
 * </ol>
 * This module runs both the user's query and every rewritten query, so a gateway needs nothing else. What the SDK
 * merges it merges its own way: a SUM or AVG across ranges is added in doubles by the SDK, where one range's (and
 * docmirror's) are exact decimals.
 */
package io.docmirror.query;
