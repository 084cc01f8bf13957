package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.HandledTransportAction;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.common.inject.Inject;
import org.opensearch.core.action.ActionListener;
import org.opensearch.tasks.Task;
import org.opensearch.transport.TransportService;

/** The four public snapshot actions: each hands its request to the {@link SnapshotService}. */
public final class TransportSnapshotActions {

    private TransportSnapshotActions() {}

    /** Takes a snapshot of an index and loads it on every data node. */
    public static final class Take extends HandledTransportAction<SnapshotRequest, SnapshotResponse> {
        private final SnapshotService service;
        private final IndexNameExpressionResolver resolver;

        @Inject
        public Take(TransportService transport, ActionFilters filters, SnapshotService service,
                    IndexNameExpressionResolver resolver) {
            super(SnapshotActions.TAKE_NAME, transport, filters, SnapshotRequest::new);
            this.service = service;
            this.resolver = resolver;
        }

        @Override
        protected void doExecute(Task task, SnapshotRequest request, ActionListener<SnapshotResponse> listener) {
            service.runAsPlugin(() -> service.take(request, resolver), listener);
        }
    }

    /** A snapshot's stored description and what every data node holds of it (every snapshot without a key). */
    public static final class Get extends HandledTransportAction<SnapshotRequest, SnapshotResponse> {
        private final SnapshotService service;

        @Inject
        public Get(TransportService transport, ActionFilters filters, SnapshotService service) {
            super(SnapshotActions.GET_NAME, transport, filters, SnapshotRequest::new);
            this.service = service;
        }

        @Override
        protected void doExecute(Task task, SnapshotRequest request, ActionListener<SnapshotResponse> listener) {
            service.runAsPlugin(() -> service.get(request), listener);
        }
    }

    /** Makes every data node load the stored generation (a repair after a node missed a take). */
    public static final class Load extends HandledTransportAction<SnapshotRequest, SnapshotResponse> {
        private final SnapshotService service;

        @Inject
        public Load(TransportService transport, ActionFilters filters, SnapshotService service) {
            super(SnapshotActions.LOAD_NAME, transport, filters, SnapshotRequest::new);
            this.service = service;
        }

        @Override
        protected void doExecute(Task task, SnapshotRequest request, ActionListener<SnapshotResponse> listener) {
            service.runAsPlugin(() -> service.load(request), listener);
        }
    }

    /** Deletes a snapshot from the store and from every data node. */
    public static final class Delete extends HandledTransportAction<SnapshotRequest, SnapshotResponse> {
        private final SnapshotService service;

        @Inject
        public Delete(TransportService transport, ActionFilters filters, SnapshotService service) {
            super(SnapshotActions.DELETE_NAME, transport, filters, SnapshotRequest::new);
            this.service = service;
        }

        @Override
        protected void doExecute(Task task, SnapshotRequest request, ActionListener<SnapshotResponse> listener) {
            service.runAsPlugin(() -> service.delete(request), listener);
        }
    }
}
