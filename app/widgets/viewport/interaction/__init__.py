"""What a press in the viewport starts: handle, tail and limit drags, modal G/R transforms."""
