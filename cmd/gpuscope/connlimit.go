package main

import (
	"io"
	"net"
	"net/http"
	"sync"
)

// connLimiter is a listener that holds at most max connections at once,
// so that clients which connect and then idle cannot use up the
// process's open files (issue 36: 20,000 idle keep-alive clients, and a
// normal request then got a 500). A connection that arrives when all are
// taken gets the slot of the keep-alive connection idle longest, closed
// for it; with none idle it waits until a connection ends (the server's
// timeouts end every one). Its track method is the http.Server's
// ConnState hook, which tells it which connections are idle.
type connLimiter struct {
	net.Listener
	slots chan struct{} // one token a connection held
	done  chan struct{} // closed with the listener
	once  sync.Once

	mu   sync.Mutex
	idle map[*limitedConn]uint64 // idle keep-alive connections, by when they became idle
	seq  uint64
	woke chan struct{} // a connection became idle (room to make)
}

func limitConns(ln net.Listener, max int) *connLimiter {
	return &connLimiter{
		Listener: ln,
		slots:    make(chan struct{}, max),
		done:     make(chan struct{}),
		idle:     map[*limitedConn]uint64{},
		woke:     make(chan struct{}, 1),
	}
}

// Accept waits for a connection and then for a slot for it.
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, l: l}, nil
		default:
		}
		if l.closeIdlest() {
			continue // its Close gave its slot back
		}
		select {
		case l.slots <- struct{}{}:
			return &limitedConn{Conn: c, l: l}, nil
		case <-l.woke:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// Close stops accepting; the connections held stay open.
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// track follows each connection's state: idle ones may be closed to make
// room.
func (l *connLimiter) track(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if state != http.StateIdle {
		delete(l.idle, lc)
		return
	}
	l.seq++
	l.idle[lc] = l.seq
	select {
	case l.woke <- struct{}{}:
	default:
	}
}

// closeIdlest closes the connection idle longest; false when none is.
func (l *connLimiter) closeIdlest() bool {
	l.mu.Lock()
	var oldest *limitedConn
	for c, since := range l.idle {
		if oldest == nil || since < l.idle[oldest] {
			oldest = c
		}
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	oldest.Close()
	return true
}

// limitedConn gives its slot back when closed, once.
type limitedConn struct {
	net.Conn
	l    *connLimiter
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.idle, c)
		c.l.mu.Unlock()
		<-c.l.slots
	})
	return err
}

// ReadFrom keeps the kernel's sendfile for files served (the server
// looks for an io.ReaderFrom on its connection).
func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}
