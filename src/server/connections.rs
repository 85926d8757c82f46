//! The open connections, oldest first. At the limit a new connection is let in by closing the
//! oldest one that is still waiting for a request's head (a client that opened it and stalls,
//! or sends its head a byte at a time), so that clients that stall cannot keep the page and
//! `/api/status` from others; when every connection is busy with a request, the new one is
//! closed at once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// One open connection as the registry sees it.
#[derive(Debug, Default)]
pub struct Connection {
    /// Between its opening or the first bytes of a new head and that head's end.
    waiting: AtomicBool,
    closing: Notify,
}

impl Connection {
    /// Told by the connection's head reader.
    pub fn set_waiting(&self, waiting: bool) {
        self.waiting.store(waiting, Ordering::Relaxed);
    }

    /// Ends when the registry closes this connection to make room.
    pub async fn closed(&self) {
        self.closing.notified().await;
    }
}

/// At most `limit` connections open at once.
#[derive(Debug)]
pub struct Connections {
    limit: usize,
    open: Mutex<Registry>,
}

#[derive(Debug, Default)]
struct Registry {
    next: u64,
    by_age: BTreeMap<u64, Arc<Connection>>,
}

/// A connection's place; given back when dropped.
pub struct Place {
    id: u64,
    connection: Arc<Connection>,
    connections: Arc<Connections>,
}

impl Place {
    pub fn connection(&self) -> &Arc<Connection> {
        &self.connection
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.connections.registry().by_age.remove(&self.id);
    }
}

impl Connections {
    pub fn new(limit: usize) -> Arc<Connections> {
        Arc::new(Connections { limit, open: Mutex::new(Registry::default()) })
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        // The registry holds no invariant a panicking holder could break.
        self.open.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A place for a new connection, waiting for its first head; at the limit, the oldest
    /// connection still waiting for a head is closed to make room; None if none is.
    pub fn admit(self: &Arc<Self>) -> Option<Place> {
        let mut registry = self.registry();
        if registry.by_age.len() >= self.limit {
            let oldest = registry
                .by_age
                .iter()
                .find(|(_, c)| c.waiting.load(Ordering::Relaxed))
                .map(|(&id, _)| id)?;
            let shed = registry.by_age.remove(&oldest).expect("found above");
            shed.closing.notify_one();
        }
        let id = registry.next;
        registry.next += 1;
        let connection =
            Arc::new(Connection { waiting: AtomicBool::new(true), closing: Notify::new() });
        registry.by_age.insert(id, connection.clone());
        Some(Place { id, connection, connections: self.clone() })
    }

    #[cfg(test)]
    fn open(&self) -> usize {
        self.registry().by_age.len()
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;

    use super::*;

    #[test]
    fn at_the_limit_the_oldest_stalled_connection_makes_room_and_busy_ones_stay() {
        let connections = Connections::new(3);
        let places: Vec<Place> = (0..3).map(|_| connections.admit().unwrap()).collect();
        places[0].connection().set_waiting(false);
        // The oldest waiting one (the second) is closed for the fourth.
        let fourth = connections.admit().unwrap();
        assert_eq!(connections.open(), 3);
        let notified = places[1].connection().closing.notified();
        let waker = std::task::Waker::noop();
        let mut notified = std::pin::pin!(notified);
        assert!(notified.as_mut().poll(&mut std::task::Context::from_waker(waker)).is_ready());
        // With every one busy, a new connection is refused.
        for c in [&places[0], &places[2], &fourth] {
            c.connection().set_waiting(false);
        }
        assert!(connections.admit().is_none());
        // A place given back lets one in.
        drop(fourth);
        assert!(connections.admit().is_some());
    }
}
